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
# ZooKeeper whether it still leads (its confirm: a sync and an exists), and
# writes only on an answer younger than its confirm deadline (half its
# interval, at most 1 s). The script opens that window on purpose, all
# within the deadline, in four steps:
#   1. just before the speaker's next line, it freezes (SIGSTOP) the
#      ZooKeeper server the speaker talks to; once the confirm waits there,
#      unread, it freezes the speaker too;
#   2. it thaws the server until its answer, "you still lead", waits unread
#      in the speaker's socket, and freezes the server again, so that
#      nothing follows the answer;
#   3. it deletes the speaker's znode, as an operator might: the next in
#      line, on another server, is told at once, leads, and writes;
#   4. it thaws the speaker, which reads the answer, still young enough,
#      and writes: a stale line, with its old epoch, after its successor's.
#      Then the server, whose news of the delete stops the speaker.
# Nothing waits on a fixed sleep, which a loaded machine would outlast. The
# speaker's lines say when its ticks come, and so its confirms. A request
# or an answer that waits is seen by the bytes a frozen process has not
# read (ss -tn: the Recv-Q at either end of the speaker's connection); a
# freeze, by every thread's state in /proc, as a SIGSTOP takes effect only
# when the process's threads next run. Each step is timed from the
# confirm: when step 1 or 2 is late the script thaws both and tries the
# speaker's next line, as nothing has changed yet; when step 3 or 4 is
# late it says which, by how much, and exits 1. With the fence (on by
# default) the file refuses the stale line; with --fence=false it lands.
# Both processes are thawed however the script ends.
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
command -v ss >/dev/null || die "needs ss (iproute2) to watch the speaker's connection"

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
# The budget, in ms from the confirm: the speaker is thawed at least a
# fifth of the deadline before its end (time to wake and read), and the
# successor has at least a quarter of it to lead and write (step 3), so
# steps 1 and 2 must be done by what is left.
wake=$((deadline / 5)) need=$((deadline / 4))
early=$((deadline - wake - need))

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
# The speaker's end of its connection, by its local port.
sport=$(ss -tnpH state established "( dport = :$port )" |
	awk -v p="pid=$pid," 'index($0, p) { n = split($3, a, ":"); print a[n]; exit }')
[ -n "$sport" ] || die "cannot find $name's connection to port $port (ss -tnp)"
# Bytes on the wire, each packet after a 4-byte length: the confirm is a
# sync (an 8-byte header, the path as a 4-byte length and its bytes) and an
# exists (the same, and a watch flag); its answers, a 16-byte header each,
# the sync's path and the exists's 68-byte stat. A ping (12 bytes) or its
# answer (20) is too short to pass for either.
asked=$((2 * ${#znode} + 33)) answered=$((${#znode} + 112))

# Inside the window the script starts as few processes as it can, as on a
# loaded machine a new one may wait long for a CPU: the clock, the printing,
# the naps and the reading of the file are bash's own; only ss runs apart.
exec {napfd}<> <(:)
nap() { read -rt "$1" -u "$napfd" _ || true; }
now() { ms=$((${EPOCHREALTIME//[!0-9]/} / 1000)); } # sets ms, since the epoch
say() {
	local t=${EPOCHREALTIME//[!0-9]/}
	printf '%(%T)T.%s  %s\n' "${t:0:-6}" "${t:(-6):3}" "$*"
}
# queued FROM TO BYTES UNTIL waits until the socket on local port FROM,
# connected to port TO, holds at least BYTES unread (the Recv-Q of ss -tn,
# left in rq): 0; or until the clock reaches UNTIL: 1.
queued() {
	while :; do
		rq=$(ss -tnH state established "( sport = :$1 and dport = :$2 )")
		rq=${rq%%[[:space:]]*} rq=${rq:-0}
		((rq < $3)) || return 0
		now
		((ms < $4)) || return 1
		nap 0.005
	done
}
# stopped PID UNTIL waits until every thread of PID has stopped (0), or
# until the clock reaches UNTIL (1). A SIGSTOP stops a process only once one
# of its threads runs to take it, and each of the others when it next runs:
# on a loaded machine tens or hundreds of ms later, and until then the
# process goes on.
stopped() {
	local t st
	while :; do
		st=T
		for t in /proc/"$1"/task/*/stat; do
			read -r st 2>/dev/null <"$t" || st=T # a thread that ended
			st=${st##*) } st=${st%% *}
			[ "$st" = T ] || break
		done
		[ "$st" = T ] && return 0
		now
		((ms < $2)) || return 1
		nap 0.005
	done
}
cli_out=$(mktemp)
trap 'kill -CONT "$spid" "$pid" 2>/dev/null || true; rm -f "$cli_out"' EXIT

# An operator's zkCli, started now, so that the delete later takes
# milliseconds, not a JVM's start.
zk_find
coproc CLI { "$ZK_CLI" -server "127.0.0.1:$other" >"$cli_out" 2>&1; }
for ((k = 0; k < 200; k++)); do grep -q SyncConnected "$cli_out" && break; sleep 0.05; done
grep -q SyncConnected "$cli_out" || die "zkCli did not connect to 127.0.0.1:$other"

say "$name leads ($znode) through server $sid ($server); a line every $interval, each on an answer younger than $deadline ms"

# due sets tick to when the speaker's next confirm goes out (ms since the
# epoch), at least lead ms from now. Its ticker is steady: a line comes a
# round trip after its tick, a whole number of intervals after the last,
# so the earliest of its last three lines in this term, brought to the
# phase of the last, is nearest its ticks. After a try that saw the
# confirm, the next tick is a whole interval on: the freeze delayed the
# line written then. After one that did not, tick is 0: guess again.
lead=500 tick=0
due() {
	local k t last times
	for ((k = 0; tick == 0 && k < 2 * every / 50; k++)); do
		mapfile -t times < <(awk -v n="$name" '$2 == n { t[++k] = $1; e[k] = $4 }
			END { for (i = k; i > 0 && i > k - 3 && e[i] == e[k]; i--) print t[i] }' "$out" 2>/dev/null | date -f - +%s%3N)
		last=${times[0]:-0}
		now
		if ((ms - last < 2 * every)); then
			tick=$last
			for t in "${times[@]}"; do
				t=$((((t - last) % every + every) % every))
				if ((t > every / 2)); then t=$((t - every)); fi
				if ((last + t < tick)); then tick=$((last + t)); fi
			done
		else
			sleep 0.05
		fi
	done
	((tick > 0)) || die "$name wrote no line in $((2 * every)) ms: does it lead?"
	now
	while ((tick - lead < ms + 20)); do tick=$((tick + every)); done
}

# window opens the window at the speaker's next line: steps 1 and 2, timed
# from its tick, when its confirm goes out. It returns 0 with the speaker
# frozen, the answer unread in its socket, and the server told to stop
# (SIGSTOP) again; or 1 with both thawed and late saying which step was
# late, and why.
window() {
	local wait froze came halted
	due
	now
	printf -v wait '%d.%03d' $(((tick - lead - ms) / 1000)) $(((tick - lead - ms) % 1000))
	nap "$wait"
	kill -STOP "$spid"
	if ! stopped "$spid" $((tick + need)); then
		kill -CONT "$spid"
		late="step 1 was late: server $sid had not stopped $((ms - tick)) ms after $name's line was due"
		return 1
	fi
	now
	froze=$ms
	if ! queued "$port" "$sport" "$asked" $((tick + need)); then
		kill -CONT "$spid"
		late="step 1 was late: no confirm of $name's came to server $sid by $((ms - tick)) ms after its line was due"
		tick=0
		return 1
	fi
	now
	came=$ms
	# It left no later than it was seen: the better guess, if earlier.
	if ((came < tick)); then tick=$came; fi
	kill -STOP "$pid"
	if ! stopped "$pid" $((tick + early)); then
		kill -CONT "$pid" "$spid"
		late="step 1 was late: $name had not stopped by $((ms - tick)) ms after its confirm (seen at $((came - tick)) ms; steps 1 and 2 have $early ms)"
		return 1
	fi
	now
	halted=$ms
	if ((froze <= tick)); then froze="$((tick - froze)) ms before"; else froze="$((froze - tick)) ms after"; fi
	say "1. froze server $sid (SIGSTOP) $froze $name's next confirm, which came and waits there unread ($asked bytes); froze $name, $((ms - tick)) ms after the confirm"
	kill -CONT "$spid"
	if ! queued "$sport" "$port" "$answered" $((tick + early)); then
		kill -CONT "$pid"
		late="step 2 was late: server $sid had not answered by $((ms - tick)) ms after the confirm ($name stopped at $((halted - tick)) ms; steps 1 and 2 have $early ms)"
		return 1
	fi
	kill -STOP "$spid"
	got=$rq
	now
	say "2. thawed server $sid until its answer, \"you still lead\", waited unread in $name's socket ($answered bytes); froze the server again, $((ms - tick)) ms after the confirm"
}

late=""
for ((try = 1; ; try++)); do
	window && break
	((try < 3)) || die "three lines in a row, $late; run it again"
	say "   $late; trying $name's next line"
done

# 3. The delete, and the successor's first line, read as it comes, while
# the answer is young enough. The speaker is frozen: its file and its log
# stay as they are until step 4.
mapfile -t seen <"$log"
logged=${#seen[@]}
exec {outfd}<"$out"
lines=0
while read -r -u "$outfd" _; do lines=$((lines + 1)); done
echo "delete $znode" >&"${CLI[1]}"
now
say "3. deleted $name's znode, as an operator might, $((ms - tick)) ms after the confirm"
# The server's stop goes on meanwhile: it must be complete, with nothing
# more in the speaker's socket (the news of the delete, note bytes), before
# the speaker wakes.
note=$((${#znode} + 32))
first="" part="" quiet=""
while [ -z "$first" ] || [ -z "$quiet" ]; do
	if [ -z "$first" ]; then
		if read -r -u "$outfd" line; then
			line=$part$line part=""
			[[ $line == *" $name "* ]] || first=$line
			continue
		fi
		part+=$line
	fi
	if [ -z "$quiet" ] && stopped "$spid" 0; then
		quiet=yes
		if queued "$sport" "$port" $((got + note)) 0; then
			late="step 3 went wrong: server $sid told $name of the delete before it stopped"
			break
		fi
	fi
	now
	if ((ms - tick >= deadline - wake)); then
		if [ -z "$first" ]; then
			late="step 3 was late: no successor wrote in the $((ms - tick)) ms after the confirm"
		else
			late="step 3 was late: server $sid had not stopped by $((ms - tick)) ms after the confirm"
		fi
		late+=", and $name needs the last $wake ms of its $deadline to act on the answer"
		break
	fi
	nap 0.005
done
now
if [ -n "$first" ]; then say "   its successor's first line, $((ms - tick)) ms after the confirm: $first"; fi

# 4. The speaker wakes, reads the answer and acts; then the server.
kill -CONT "$pid"
now
age=$((ms - tick))
if ((age <= deadline - wake)); then
	say "4. thawed $name (SIGCONT), $age ms after the confirm, within its deadline ($deadline ms)"
else
	say "4. thawed $name (SIGCONT), $age ms after the confirm, too close to its deadline ($deadline ms)"
	late=${late:-"step 4 was late: $name was thawed $age ms after its confirm, less than $wake ms before its deadline ($deadline ms)"}
fi
since() { tail -n +$((logged + 1)) "$log"; }
for ((k = 0; k < deadline / 10; k++)); do
	tail -n +$((lines + 1)) "$out" | grep " $name " >/dev/null && break
	since | grep -E 'fenced:|too old|cannot confirm' >/dev/null && break
	sleep 0.01
done
kill -CONT "$spid"
say "   and server $sid, which tells $name of the delete"
for ((k = 0; k < 300; k++)); do since | grep 'no longer the leader' >/dev/null && break; sleep 0.01; done
echo quit >&"${CLI[1]}"
echo "The last lines of $out:"
tail -n 4 "$out"
# What became of the answer: a line after its successor's first, or the
# fence's refusal in its log, or neither (the window was missed: again).
stale=""
if [ -n "$first" ]; then stale=$(awk -v f="$first" -v n=" $name " 'seen && index($0, n) { print; exit } $0 == f { seen = 1 }' "$out"); fi
fenced=$(since | grep -F 'fenced:' | tail -n 1 || true)
if [ -n "$stale" ]; then
	echo "A stale line landed: $name wrote after its successor, with its old epoch: $stale"
elif [ -n "$fenced" ]; then
	echo "The fence refused the stale line; $name's log says: ${fenced#*msg=}"
else
	why=$(since | grep -E 'too old|cannot confirm' | head -n 1 || true)
	echo "$name wrote nothing after its successor this time (${late:-its log says: ${why#*msg=}}); run it again"
	exit 1
fi
