#!/usr/bin/env bash
# demo-tmux.sh is `make demo-tmux`: the three-terminal walkthrough in one
# tmux window. A 3-server ensemble runs in the background; the window has a
# pane per speaker, a pane tailing out/out.txt and a pane running
# `speaker status --watch`, and zkview serves a live page of it all, whose
# address the script prints and shows on zkview's pane title and the status
# line. It starts clean: a new ensemble and an empty out/out.txt. Kill speakers by hand (Ctrl-C in a pane), start
# them again (Up, Enter), and watch the others take over.
# Detaching (Ctrl-b d) or closing the window ends the demo: the speakers
# get SIGTERM (they leave the election), then the panes close and every
# server stops. Run from inside tmux, it switches the client to its session
# instead of attaching (tmux refuses to nest); leaving that session (Ctrl-b L,
# or detaching) ends the demo.
#
# Environment: DEMO_TMUX_DETACHED=1 sets everything up and returns without
# attaching (for tests; stop with `demo-tmux.sh stop`), SPEAKER_BIN,
# ZKVIEW_BIN, ZKVIEW_LISTEN (default 127.0.0.1:8181; :0 picks a free port),
# ZK_BASE_PORT, ENSEMBLE_DIR, OUT (default out/out.txt), TMUX_SESSION
# (default zkspeaker).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
BIN=${SPEAKER_BIN:-$root/bin/speaker}
ZKVIEW=${ZKVIEW_BIN:-$root/bin/zkview}
OUT=${OUT:-$root/out/out.txt}
SESSION_NAME=${TMUX_SESSION:-zkspeaker}

# stop_panes sends SIGTERM to what each pane's shell runs (the speakers, the
# tail, the status watch) and waits up to 3 s for it to end. A speaker then
# deletes its znode and closes its session; killing the session would only
# hang it up (SIGHUP), which leaves its znode behind.
stop_panes() {
	local shells shell p k pids=()
	shells=$(tmux list-panes -s -t "$SESSION_NAME" -F '#{pane_pid}' 2>/dev/null) || return 0
	for shell in $shells; do
		for p in $(pgrep -P "$shell" || true); do pids+=("$p"); done
	done
	[ "${#pids[@]}" -gt 0 ] || return 0
	kill -TERM "${pids[@]}" 2>/dev/null || true
	for ((k = 0; k < 30; k++)); do
		kill -0 "${pids[@]}" 2>/dev/null || return 0 # (true while any lives)
		sleep 0.1
	done
}

stop() {
	stop_panes
	tmux kill-session -t "$SESSION_NAME" 2>/dev/null || true
	"$here/ensemble.sh" stop >/dev/null 2>&1 || true
	echo "tmux session $SESSION_NAME closed and the ensemble stopped; $OUT stays."
}

if [ "${1:-}" = stop ]; then
	stop
	exit 0
fi
command -v tmux >/dev/null 2>&1 || { echo "demo-tmux.sh: tmux not found: install it (apt-get install tmux, brew install tmux)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "demo-tmux.sh: $BIN not found: run make build" >&2; exit 1; }
[ -x "$ZKVIEW" ] || { echo "demo-tmux.sh: $ZKVIEW not found: run make build" >&2; exit 1; }
if tmux has-session -t "$SESSION_NAME" 2>/dev/null; then
	echo "demo-tmux.sh: tmux session $SESSION_NAME already exists: attach with tmux attach -t $SESSION_NAME, or end it with $0 stop" >&2
	exit 1
fi

# Start clean, as make demo does: lines left in $OUT by an earlier run would
# draw a "gap" between the runs that looks like a slow failover, and an
# ensemble started on an earlier run's data numbers its znodes and epochs on
# from there, unlike the course. Refuse while a server of it runs.
live=$("$here/ensemble.sh" pids) || { echo "demo-tmux.sh: cannot tell whether an ensemble runs" >&2; exit 1; }
if [ -n "$live" ]; then
	echo "demo-tmux.sh: an ensemble is already running; stop it and start clean: make clean-demo (or ensemble-scripts/ensemble.sh clean)" >&2
	exit 1
fi
"$here/ensemble.sh" clean >/dev/null
rm -f "$OUT"
echo "starting clean: no earlier ensemble folder or out file ($OUT) is left"
servers=$("$here/ensemble.sh" start 3 | tail -n 1)
mkdir -p "$(dirname "$OUT")"
touch "$OUT"
trap stop EXIT

# Each pane runs an interactive shell with the command typed in, so that
# after Ctrl-C the command is one Up-arrow away.
pane() { tmux send-keys -t "$1" "$2" Enter; }
tmux new-session -d -s "$SESSION_NAME" -x 200 -y 50 -c "$root"
tmux set-option -t "$SESSION_NAME" remain-on-exit on >/dev/null
# A title on top of each pane says what runs there. tmux 3.4+ can keep a
# program from changing it (-q: older ones lack the option).
tmux set-option -w -t "$SESSION_NAME" pane-border-status top >/dev/null
tmux set-option -w -q -t "$SESSION_NAME" allow-set-title off >/dev/null
status_pane=$(tmux display-message -p -t "$SESSION_NAME" '#{pane_id}')
tmux select-pane -t "$status_pane" -T status
pane "$status_pane" "$BIN status --watch --servers $servers"
tail_pane=$(tmux split-window -t "$SESSION_NAME" -c "$root" -P -F '#{pane_id}')
tmux select-pane -t "$tail_pane" -T "$(basename "$OUT")"
pane "$tail_pane" "tail -F $OUT"
view_pane=$(tmux split-window -t "$SESSION_NAME" -c "$root" -P -F '#{pane_id}')
tmux select-pane -t "$view_pane" -T zkview
pane "$view_pane" "$ZKVIEW --servers $servers --out $OUT --listen ${ZKVIEW_LISTEN:-127.0.0.1:8181}"
for i in 1 2 3; do
	p=$(tmux split-window -t "$SESSION_NAME" -c "$root" -P -F '#{pane_id}')
	tmux select-pane -t "$p" -T "speaker-$i"
	pane "$p" "$BIN --servers $servers --name speaker-$i --out $OUT"
	tmux select-layout -t "$SESSION_NAME" tiled >/dev/null
done

# zkview prints its address first thing (port 0 resolved). Say it here, and
# inside the window, which hides this terminal until the demo ends: in
# zkview's pane title and on the status line.
# A busy machine has taken 8 s to start the pane's shell and zkview, so the
# wait is long; it ends as soon as the address shows.
url=""
for ((k = 0; k < 600; k++)); do
	url=$(tmux capture-pane -p -t "$view_pane" | grep -o -m 1 'http://[0-9.:]*/' || true)
	[ -n "$url" ] && break
	sleep 0.05
done
if [ -n "$url" ]; then
	echo "Watch it live in a browser: $url (zkview)"
	tmux select-pane -t "$view_pane" -T "zkview $url"
	tmux set-option -t "$SESSION_NAME" status-right-length 60 >/dev/null
	tmux set-option -t "$SESSION_NAME" status-right " zkview: $url " >/dev/null
else
	echo "demo-tmux.sh: zkview printed no address; see its pane" >&2
fi

if [ "${DEMO_TMUX_DETACHED:-0}" = 1 ]; then
	trap - EXIT
	echo "tmux session $SESSION_NAME is ready: tmux attach -t $SESSION_NAME; end it with $0 stop"
	exit 0
fi
if [ -n "${TMUX:-}" ]; then
	# Inside tmux, attach would nest a client in this pane, which tmux
	# refuses: switch this client to the demo's session instead, and end the
	# demo once no client shows it. If the session is killed while shown,
	# the client moves to another session rather than leaving tmux.
	tmux set-option -t "$SESSION_NAME" detach-on-destroy off >/dev/null
	tmux switch-client -t "$SESSION_NAME"
	echo "switched to tmux session $SESSION_NAME; leave it (Ctrl-b L, back to this one, or Ctrl-b d) to end the demo"
	while [ "$(tmux display-message -p -t "$SESSION_NAME" '#{session_attached}' 2>/dev/null || echo 0)" != 0 ]; do
		sleep 0.5
	done
else
	tmux attach -t "$SESSION_NAME"
fi
