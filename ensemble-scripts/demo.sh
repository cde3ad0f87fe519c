#!/usr/bin/env bash
# demo.sh is `make demo`: a 3-server ZooKeeper ensemble, three speakers,
# and the failures the articles talk about, one step at a time:
#   1. SIGTERM the leader: it leaves the election, the next takes over at once;
#   2. SIGKILL the new leader: its znode lives until its session expires;
#   3. kill the ZooKeeper server the last speaker talks to: it moves to
#      another server within its session, and nobody takes over;
#   4. print the timeline of out.txt, and draw it in out/demo/timeline.svg
#      with each of the faults above marked where it happened.
# Everything it starts is stopped at the end, on Ctrl-C too; out/demo/ stays
# for inspection.
#
# zkview serves a live page of it all meanwhile; the demo prints its
# address.
#
# Environment: DEMO_FAST=1 (short ticks and timeouts, for CI), DEMO_OUT
# (default out/ under the repository), SPEAKER_BIN (default bin/speaker),
# ZKVIEW_BIN (default bin/zkview), ZKVIEW_LISTEN (default 127.0.0.1:8181;
# :0 picks a free port), DEMO_SHOTS (a folder: save the page as PNGs there
# at its steps, each whole and as a 1280x720 projector shows it, with
# SNAPSHOT_BIN, which `make screenshots` builds),
# ZK_BASE_PORT (2181).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out_root=${DEMO_OUT:-$root/out}
demo=$out_root/demo
export ENSEMBLE_DIR=$out_root/ensemble
BIN=${SPEAKER_BIN:-$root/bin/speaker}
ZKVIEW=${ZKVIEW_BIN:-$root/bin/zkview}

if [ "${DEMO_FAST:-0}" = 1 ]; then
	export ZK_TICK_MS=200
	SESSION=1s SESSION_S=1 INTERVAL=200ms WATCH_S=1.5
else
	export ZK_TICK_MS=2000
	SESSION=5s SESSION_S=5 INTERVAL=1s WATCH_S=5
fi
NAMES=(speaker-1 speaker-2 speaker-3)
declare -A pid=()
# started names, in words, what the demo has started, so that its last line
# says only what is true: a demo that fails to start (a port in use) has
# stopped nothing.
started=()

# Bold headings on a terminal only: in a file or a pipe, escapes are noise.
if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
say() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }

cleanup() {
	trap - EXIT INT TERM
	local p files=logs list
	for p in "${pid[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	if ((${#pid[@]} > 0)); then sleep 1; fi
	for p in "${pid[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	"$here/ensemble.sh" stop >/dev/null 2>&1 || true
	echo
	if [ -n "$("$here/ensemble.sh" pids 2>/dev/null)" ]; then
		echo "demo.sh: some ZooKeeper servers in $ENSEMBLE_DIR still run: see ensemble-scripts/ensemble.sh status" >&2
	elif ((${#started[@]} > 0)); then
		if [ -e "$demo/out.txt" ]; then files="logs and out.txt"; fi
		list=$(printf '%s, ' "${started[@]}")
		echo "Stopped all the demo started (${list%, }). Its $files are in $demo/"
	elif compgen -G "$ENSEMBLE_DIR/zk*/server.log" >/dev/null; then
		echo "demo.sh: the ensemble did not start; the servers that did are stopped, and nothing else was started (their logs: $ENSEMBLE_DIR/zk*/server.log)" >&2
	else
		echo "demo.sh: the demo did not start, and started nothing" >&2
	fi
}

[ -x "$BIN" ] || { echo "demo.sh: $BIN not found: run make build" >&2; exit 1; }
[ -x "$ZKVIEW" ] || { echo "demo.sh: $ZKVIEW not found: run make build" >&2; exit 1; }
# Below, the demo deletes $ENSEMBLE_DIR: refuse if any server of it runs,
# serving or not. (No `status | grep -q` here: under pipefail, grep's early
# exit kills status with SIGPIPE and the check never fires.)
live=$("$here/ensemble.sh" pids) || { echo "demo.sh: cannot tell whether an ensemble runs in $ENSEMBLE_DIR" >&2; exit 1; }
if [ -n "$live" ]; then
	echo "demo.sh: an ensemble is already running in $ENSEMBLE_DIR: run ensemble-scripts/ensemble.sh stop first" >&2
	exit 1
fi
trap cleanup EXIT
trap 'echo; echo "interrupted"; exit 130' INT TERM

rm -rf "$demo" "$ENSEMBLE_DIR"
mkdir -p "$demo"

# events.txt records each fault as it is sent, for `speaker timeline
# --events`: one line "<time> <kind> <target> <note>", the time in RFC 3339,
# UTC. The time comes from bash itself ($EPOCHREALTIME, bash 5), so that
# no date(1) of one system or another is needed.
events=$demo/events.txt
echo "# what demo.sh did: <time> <kind> <target> <note>" >"$events"
event() {
	local now=$EPOCHREALTIME
	TZ=UTC printf '%(%Y-%m-%dT%H:%M:%S)T.%sZ %s\n' "${now%[.,]*}" "${now#*[.,]}" "$*" >>"$events"
}

say "Start a 3-server ZooKeeper ensemble (tickTime ${ZK_TICK_MS} ms)"
servers=$("$here/ensemble.sh" start 3 | tail -n 1)
started+=("the ZooKeeper servers")
"$here/ensemble.sh" status

# zkview prints its address on stdout once it serves; port 0 (a free one)
# when the usual one is taken.
start_zkview() {
	local listen=$1 k
	: >"$demo/zkview.url"
	"$ZKVIEW" --servers "$servers" --out "$demo/out.txt" --listen "$listen" >"$demo/zkview.url" 2>"$demo/zkview.log" &
	pid[zkview]=$!
	for ((k = 0; k < 100; k++)); do
		url=$(head -n 1 "$demo/zkview.url")
		[ -n "$url" ] && return 0
		kill -0 "${pid[zkview]}" 2>/dev/null || break
		sleep 0.05
	done
	unset "pid[zkview]"
	return 1
}
url=""
start_zkview "${ZKVIEW_LISTEN:-127.0.0.1:8181}" || start_zkview 127.0.0.1:0 ||
	{ echo "demo.sh: zkview did not start; see $demo/zkview.log" >&2; exit 1; }
started+=(zkview)
echo "Watch it live in a browser: $url (zkview, log $demo/zkview.log)"

# shot NAME [SIZE...] saves the page as PNGs in $DEMO_SHOTS, when it is
# set: NAME-1280x720.png, what a 1280x720 projector shows (nothing below
# it), first, then NAME.png, the whole page in a 1400x900 window; or only
# the sizes given ("whole" for the second).
shot() {
	[ -n "${DEMO_SHOTS:-}" ] || return 0
	mkdir -p "$DEMO_SHOTS"
	local name=$1 size file
	shift
	[ $# -gt 0 ] || set -- 1280x720 whole
	for size in "$@"; do
		if [ "$size" = whole ]; then
			file=$DEMO_SHOTS/$name.png
			"${SNAPSHOT_BIN:-$root/bin/zkview-snapshot}" "$url" "$file" || return 0
		else
			file=$DEMO_SHOTS/$name-$size.png
			"${SNAPSHOT_BIN:-$root/bin/zkview-snapshot}" "$url" "$file" "$size" || return 0
		fi
		echo "(the page: $file)"
	done
}

say "Start three speakers; each joins /election with an EPHEMERAL|SEQUENTIAL znode"
started+=("the speakers")
for name in "${NAMES[@]}"; do
	"$BIN" --servers "$servers" --name "$name" --out "$demo/out.txt" \
		--interval "$INTERVAL" --session-timeout "$SESSION" 2>"$demo/$name.log" &
	pid[$name]=$!
	echo "$name: pid ${pid[$name]}, log $demo/$name.log"
	sleep 0.3 # so that they queue in name order
done

# writer prints the name on the last line of out.txt.
writer() { tail -n 1 "$demo/out.txt" 2>/dev/null | cut -d' ' -f2; }

# wait_writer waits until someone other than $1 writes, for at most $2 s.
wait_writer() {
	local old=$1 limit=$2 start=$SECONDS w
	while :; do
		w=$(writer)
		if [ -n "$w" ] && [ "$w" != "$old" ]; then
			echo "$w"
			return 0
		fi
		if ((SECONDS - start > limit)); then
			echo "demo.sh: nobody took over from ${old:-nobody} within $limit s; see $demo/*.log" >&2
			return 1
		fi
		sleep 0.05
	done
}

leader=$(wait_writer "" 30)
sleep "$WATCH_S"
echo "$leader speaks; the others wait in line, each watching only the one ahead:"
"$BIN" status --servers "$servers"
tail -n 3 "$demo/out.txt"
shot zkview-1-three-candidates

say "Step 1: SIGTERM $leader. It deletes its znode and closes its session, so the next in line takes over at once"
event SIGTERM "$leader" the leader
kill -TERM "${pid[$leader]}"
wait "${pid[$leader]}" || true
unset "pid[$leader]"
leader=$(wait_writer "$leader" 10)
sleep "$WATCH_S"
echo "$leader took over:"
tail -n 3 "$demo/out.txt"
shot zkview-2-after-sigterm

say "Step 2: SIGKILL $leader. Its znode stays until ZooKeeper expires its session ($SESSION), then the last speaker takes over"
# (The braces silence bash's own "Killed" notice, printed when it reaps the job.)
event SIGKILL "$leader" the new leader
{
	kill -KILL "${pid[$leader]}"
	wait "${pid[$leader]}" || true
} 2>/dev/null
unset "pid[$leader]"
# zkview asks the servers twice a second: the dead leader's card counts
# its session down soon after. Only the projector's size: the session is
# short, and each picture starts a browser.
if [ -n "${DEMO_SHOTS:-}" ]; then
	sleep 1
	shot zkview-2b-after-sigkill 1280x720
fi
leader=$(wait_writer "$leader" $((SESSION_S * 3 + 10)))
sleep "$WATCH_S"
echo "$leader took over:"
tail -n 3 "$demo/out.txt"

# The server the leader is connected to is on the last connected or
# reconnected line of its log: server=127.0.0.1:PORT.
port=$(grep -E 'msg=(connected|reconnected) ' "$demo/$leader.log" | tail -n 1 | sed -E 's/.*server=[^ ]*:([0-9]+).*/\1/')
id=$((port - ${ZK_BASE_PORT:-2181} + 1))
say "Step 3: SIGKILL ZooKeeper server $id (port $port), the one $leader talks to. Its session moves to another server before it expires: no failover"
event SIGKILL "zk-server-$id" "the ZooKeeper server $leader talks to"
"$here/ensemble.sh" kill "$id"
sleep "$WATCH_S"
sleep "$WATCH_S"
"$here/ensemble.sh" status
echo "what $leader logged:"
grep -E 'msg="disconnected|msg=reconnected|msg="no longer|msg="paused|msg="reconnected in time' "$demo/$leader.log" | tail -n 4 || true
now=$(writer)
echo "still speaking: $now"
tail -n 3 "$demo/out.txt"
if [ "$now" != "$leader" ]; then
	echo "demo.sh: $now speaks instead of $leader after a ZooKeeper server died" >&2
	exit 1
fi
shot zkview-3-after-server-kill

# Paths relative to where make demo runs, when they are below it, so that
# the report and the picture name out/demo/out.txt, not this checkout's path.
rel=${demo#"$PWD"/}
say "Step 4: the timeline of $rel/out.txt: each term, the failover gaps, any anomaly, and the faults above"
"$BIN" timeline --events "$rel/events.txt" --svg "$rel/timeline.svg" "$rel/out.txt"
