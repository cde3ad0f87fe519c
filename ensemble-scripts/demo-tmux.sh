#!/usr/bin/env bash
# demo-tmux.sh is `make demo-tmux`: the three-terminal walkthrough in one
# tmux window. A 3-server ensemble runs in the background; the window has a
# pane per speaker, a pane tailing out/out.txt and a pane running
# `speaker status --watch`. Kill speakers by hand (Ctrl-C in a pane), start
# them again (Up, Enter), and watch the others take over.
# Detaching (Ctrl-b d) or closing the window ends the demo and stops every
# server.
#
# Environment: DEMO_TMUX_DETACHED=1 sets everything up and returns without
# attaching (for tests; stop with `demo-tmux.sh stop`), SPEAKER_BIN,
# ZK_BASE_PORT, ENSEMBLE_DIR, OUT (default out/out.txt), TMUX_SESSION
# (default zkspeaker).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
BIN=${SPEAKER_BIN:-$root/bin/speaker}
OUT=${OUT:-$root/out/out.txt}
SESSION_NAME=${TMUX_SESSION:-zkspeaker}

stop() {
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
if tmux has-session -t "$SESSION_NAME" 2>/dev/null; then
	echo "demo-tmux.sh: tmux session $SESSION_NAME already exists: attach with tmux attach -t $SESSION_NAME, or end it with $0 stop" >&2
	exit 1
fi

servers=$("$here/ensemble.sh" start 3 | tail -n 1)
mkdir -p "$(dirname "$OUT")"
touch "$OUT"
trap stop EXIT

# Each pane runs an interactive shell with the command typed in, so that
# after Ctrl-C the command is one Up-arrow away.
pane() { tmux send-keys -t "$1" "$2" Enter; }
tmux new-session -d -s "$SESSION_NAME" -x 200 -y 50 -c "$root"
tmux set-option -t "$SESSION_NAME" remain-on-exit on >/dev/null
status_pane=$(tmux display-message -p -t "$SESSION_NAME" '#{pane_id}')
pane "$status_pane" "$BIN status --watch --servers $servers"
tail_pane=$(tmux split-window -t "$SESSION_NAME" -c "$root" -P -F '#{pane_id}')
pane "$tail_pane" "tail -F $OUT"
for i in 1 2 3; do
	p=$(tmux split-window -t "$SESSION_NAME" -c "$root" -P -F '#{pane_id}')
	pane "$p" "$BIN --servers $servers --name speaker-$i --out $OUT"
	tmux select-layout -t "$SESSION_NAME" tiled >/dev/null
done

if [ "${DEMO_TMUX_DETACHED:-0}" = 1 ]; then
	trap - EXIT
	echo "tmux session $SESSION_NAME is ready: tmux attach -t $SESSION_NAME; end it with $0 stop"
	exit 0
fi
tmux attach -t "$SESSION_NAME"
