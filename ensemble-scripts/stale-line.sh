#!/usr/bin/env bash
# stale-line.sh is the course's fencing step: it makes a leading speaker act
# on an answer that was true when the server gave it, and stale when the
# speaker acts on it, as a GC pause or a slow network does in real life.
#
#   ensemble-scripts/stale-line.sh PID LOG
#
# PID is the leading speaker's process, LOG its log (its stderr). It must
# talk to one ZooKeeper follower alone (--servers with one address), and
# its successor to other servers. Before every line the speaker asks
# ZooKeeper whether it still leads (its confirm), and writes only on an
# answer younger than its confirm deadline (half its interval, at most
# 1 s). The script opens that window on purpose, all within the deadline,
# so the timing is the script's, not a person's:
#   1. just before the speaker's next line, it freezes (SIGSTOP) the
#      ZooKeeper server the speaker talks to: its confirm waits there;
#   2. it freezes the speaker, and thaws the server just long enough to
#      answer "you still lead": the answer waits, unread, in the speaker's
#      socket; the server is frozen again, so that nothing follows it;
#   3. it deletes the speaker's znode, as an operator might: the next in
#      line, on another server, is told at once, leads, and writes;
#   4. it thaws the speaker, which reads the answer, still young enough,
#      and writes: a stale line, with its old epoch, after its successor's.
#      Then the server, whose news of the delete stops the speaker.
# With the fence (on by default) the file refuses that line; with
# --fence=false it lands. Both processes are thawed however the script ends.
#
# Environment: ENSEMBLE_DIR and ZK_BASE_PORT, as for ensemble.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=ensemble-scripts/zk-env.sh
. "$here/zk-env.sh"

die() {
	echo "stale-line.sh: $1" >&2
	exit "${2:-1}"
}
[ $# = 2 ] || die "usage: stale-line.sh PID LOG (the leading speaker's pid and log)" 2
pid=$1 log=$2
kill -0 "$pid" 2>/dev/null || die "no process $pid"
[ -r "$log" ] || die "cannot read $log"

# field KEY [PATTERN] prints KEY's value on the last line of the log that
# matches PATTERN.
field() { grep -E "${2:-.}" "$log" | grep -o "$1=[^ ]*" | tail -n 1 | cut -d= -f2- | tr -d '"'; }
name=$(field name 'speaker started')
out=$(field out 'speaker started')
interval=$(field interval 'speaker started')
znode=$(field znode 'became leader')
server=$(field server 'msg="?(re)?connected')
if [ -z "$name" ] || [ -z "$out" ] || [ -z "$znode" ] || [ -z "$server" ]; then
	die "$log does not say that this speaker leads (no speaker started, connected and became leader lines)"
fi
# The interval in ms (1s, 500ms, 2.5s; not 1m): the deadline is half of it, at most 1 s.
case $interval in
*ms) every=${interval%ms} ;;
*s) every=$(awk -v s="${interval%s}" 'BEGIN { printf "%d", s * 1000 }') ;;
*) die "cannot read the interval $interval from $log" ;;
esac
deadline=$((every / 2 < 1000 ? every / 2 : 1000))
((deadline >= 400)) || die "its confirm deadline is ${deadline} ms, too short to work in: start it with --interval 1s or more"

# The server it talks to, by port, among the ensemble's; and another to
# delete through.
port=${server##*:} sid="" mode="" other=""
while read -r id p m _; do
	if [ "$p" = "$port" ]; then sid=$id mode=$m; elif [ -z "$other" ]; then other=$p; fi
done < <("$here/ensemble.sh" status | tail -n +2)
[ -n "$sid" ] || die "its server $server is not one of the ensemble's (ENSEMBLE_DIR, ZK_BASE_PORT?)"
if [ "$mode" != follower ] || [ -z "$other" ]; then
	die "it talks to server $sid, the $mode: freezing it would stop the whole ensemble; start it with --servers and one follower's address (ensemble.sh status)"
fi
spid=$("$here/ensemble.sh" pids | awk -v id="$sid" '$1 == id { print $2 }')

logged=$(wc -l <"$log")
now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }
say() { printf '%s  %s\n' "$(date +%T.%3N)" "$*"; }
trap 'kill -CONT "$spid" "$pid" 2>/dev/null || true' EXIT

# An operator's zkCli, started now, so that the delete later takes
# milliseconds, not a JVM's start.
zk_find
cli_out=$(mktemp)
coproc CLI { "$ZK_CLI" -server "127.0.0.1:$other" >"$cli_out" 2>&1; }
for ((k = 0; k < 200; k++)); do grep -q SyncConnected "$cli_out" && break; sleep 0.05; done
grep -q SyncConnected "$cli_out" || die "zkCli did not connect to 127.0.0.1:$other"

say "$name leads ($znode) through server $sid ($server); a line every $interval, each on an answer younger than $deadline ms"
# The speaker's lines come on a steady ticker: wait for its next, and time
# the freeze from it.
last=$(grep -c " $name " "$out" || true)
for ((k = 0; k < 2 * every / 10 + 100; k++)); do
	now=$(grep -c " $name " "$out" || true)
	((now > last)) && break
	sleep 0.01
done
((now > last)) || die "$name wrote no line in $interval: does it lead?"
tick=$(($(now_ms) + every))
sleep "$(awk -v ms=$((tick - 150 - $(now_ms))) 'BEGIN { printf "%.3f", ms / 1000 }')"
kill -STOP "$spid"
say "1. froze server $sid (SIGSTOP): $name's next confirm will wait there"
sleep 0.25
kill -STOP "$pid"
kill -CONT "$spid"
sleep 0.05
kill -STOP "$spid"
say "2. froze $name, thawed server $sid for 50 ms and froze it again: its answer, \"you still lead\", waits unread"
lines=$(wc -l <"$out")
echo "delete $znode" >&"${CLI[1]}"
say "3. deleted $name's znode, as an operator might"
first=""
for ((k = 0; k < 50; k++)); do
	first=$(tail -n +$((lines + 1)) "$out" | grep -v " $name " | head -n 1 || true)
	[ -n "$first" ] && break
	sleep 0.01
done
if [ -n "$first" ]; then say "   its successor's first line: $first"; else say "   no successor wrote yet (does it talk to server $sid too?)"; fi
kill -CONT "$pid"
say "4. thawed $name (SIGCONT), about $(($(now_ms) - tick)) ms after its confirm went out"
sleep 0.2
kill -CONT "$spid"
say "   and server $sid, which tells $name of the delete"
echo quit >&"${CLI[1]}"
rm -f "$cli_out"
sleep 0.3
echo "The last lines of $out:"
tail -n 4 "$out"
# What became of the answer: a line after its successor's first, or the
# fence's refusal in its log, or neither (the window was missed: again).
stale=""
if [ -n "$first" ]; then stale=$(awk -v f="$first" -v n=" $name " 'seen && index($0, n) { print; exit } $0 == f { seen = 1 }' "$out"); fi
fenced=$(tail -n +$((logged + 1)) "$log" | grep -F 'fenced:' | tail -n 1 || true)
if [ -n "$stale" ]; then
	echo "A stale line landed: $name wrote after its successor, with its old epoch: $stale"
elif [ -n "$fenced" ]; then
	echo "The fence refused the stale line; $name's log says: ${fenced#*msg=}"
else
	echo "$name wrote nothing after its successor this time (its answer came too late: see $log); run it again"
	exit 1
fi
