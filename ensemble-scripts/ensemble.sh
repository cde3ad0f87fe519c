#!/usr/bin/env bash
# ensemble.sh runs several ZooKeeper servers on this one machine, to try
# failure scenarios by hand: kill a server, kill the leader, lose quorum.
#
# Server i (1..N) lives in $ENSEMBLE_DIR/zk<i>: zoo.cfg, data/myid,
# server.log and server.pid. The scripts find a running server by its
# command line, which names its zoo.cfg, not by server.pid: a server
# outlives its pid file, or its whole folder, and must still be found.
# Its ports, from ZK_BASE_PORT (B):
#   client   B + i - 1
#   peer     B + 1000 + i - 1
#   election B + 2000 + i - 1
# so two ensembles never collide when their base ports are at least N apart
# (and not 1000 or 2000 apart); N is at most 9. start warns when a port of
# the layout lies in the kernel's ephemeral range (32768-60999 on Linux):
# an outgoing connection may take it while its server is down.
# ZK_BASE_PORT is for these scripts only: speaker bench, speaker chaos and
# seqid bench start servers of their own on free ports they choose, below
# that range, and ignore it.
#
# Environment: ZK_BASE_PORT (2181), ENSEMBLE_DIR (out/ensemble under the
# repository), ZK_TICK_MS (2000), ZK_START_TIMEOUT seconds (30),
# ZK_JOIN_TIMEOUT seconds (10), ZK_MAX_SESSION_MS (unset: the server's default of 20 ticks),
# ZK_JAVA_OPTS (-Xmx256m: the servers' JVM options; the tests give lighter ones),
# ZK_OWNER_PID (unset: when set, each server is killed, and $DIR removed,
# within a second or two of that process's end; for programs that start
# servers of their own, whose servers must not outlive them).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=ensemble-scripts/zk-env.sh
. "$here/zk-env.sh"

BASE=${ZK_BASE_PORT:-2181}
DIR=${ENSEMBLE_DIR:-$(cd "$here/.." && pwd)/out/ensemble}
# Absolute, and spelled as start spells it in the servers' command lines.
case $DIR in /*) ;; *) DIR=$PWD/$DIR ;; esac
if [ -d "$DIR" ]; then DIR=$(cd "$DIR" && pwd); else DIR=${DIR%/}; fi
TICK=${ZK_TICK_MS:-2000}
START_TIMEOUT=${ZK_START_TIMEOUT:-30}

usage() {
	cat <<USAGE
usage: ensemble.sh COMMAND
  start [N]         write configs for N servers (default 3; 1 = standalone), start them, wait until they serve
  status            id, client port, mode and pid of each server
  kill ID           SIGKILL server ID (a crash)
  stop-server ID    SIGTERM server ID and wait until it is gone
  start-server ID   start server ID again
  restart ID        stop-server, then start-server
  freeze ID SECONDS SIGSTOP server ID, wait SECONDS, SIGCONT it (a cut that lasts: clients get silence)
  stop              stop every server of $DIR, pid files or not
  clean             stop every server, then delete $DIR
  pids              ID and pid of each running server of $DIR, one a line
  servers           print the connection string
  cli [ID]          open zkCli.sh on server ID (default 1)
USAGE
}

die() {
	echo "ensemble.sh: $1" >&2
	exit "${2:-1}"
}

client_port() { echo $((BASE + $1 - 1)); }
# port_of prints server $1's client port as its configuration says, so that
# a shell with another ZK_BASE_PORT finds the servers that start wrote; the
# port from ZK_BASE_PORT when there is no configuration yet.
port_of() {
	local p=""
	if [ -f "$(server_dir "$1")/zoo.cfg" ]; then p=$(sed -n 's/^clientPort=//p' "$(server_dir "$1")/zoo.cfg"); fi
	if [ -n "$p" ]; then echo "$p"; else client_port "$1"; fi
}
peer_port() { echo $((BASE + 1000 + $1 - 1)); }
election_port() { echo $((BASE + 2000 + $1 - 1)); }
server_dir() { echo "$DIR/zk$1"; }

# size prints the number of servers: $DIR/servers, or more if a server with
# a higher ID runs (the folder may be gone); 0 if neither.
size() {
	local n=0 id pid
	if [ -f "$DIR/servers" ]; then n=$(cat "$DIR/servers"); fi
	while read -r id pid; do
		if ((id > n)); then n=$id; fi
	done < <(running)
	echo "$n"
}

count() {
	local n
	n=$(size)
	[ "$n" -gt 0 ] || die "no ensemble in $DIR; run: ensemble.sh start [N]"
	echo "$n"
}

check_id() {
	local n
	n=$(count)
	if ! [[ "${1:-}" =~ ^[1-9]$ ]] || [ "$1" -gt "$n" ]; then
		die "bad server ID '${1:-}': want 1 to $n" 2
	fi
}

MAIN=org.apache.zookeeper.server.quorum.QuorumPeerMain

# running prints "ID PID" for each live server of $DIR, found by its command
# line, which ends in "QuorumPeerMain $DIR/zk<ID>/zoo.cfg" (see launch).
running() {
	local f args pid line
	if [ -d /proc/self ]; then
		for f in /proc/[0-9]*/cmdline; do
			# A process may end while we look: skip it.
			mapfile -d '' -t args 2>/dev/null <"$f" || continue
			if [ "${#args[@]}" -lt 2 ] || [ "${args[-2]}" != "$MAIN" ]; then continue; fi
			if [[ "${args[-1]}" =~ ^"$DIR"/zk([1-9])/zoo\.cfg$ ]]; then
				pid=${f#/proc/}
				echo "${BASH_REMATCH[1]} ${pid%/cmdline}"
			fi
		done
	else
		# No /proc (macOS): ps joins the arguments with spaces.
		while read -r pid line; do
			if [[ "$line" =~ \ "$MAIN"\ "$DIR"/zk([1-9])/zoo\.cfg$ ]]; then
				echo "${BASH_REMATCH[1]} $pid"
			fi
		done < <(ps -axww -o pid= -o args=)
	fi | sort -n
}

# pid_of prints server $1's pid if it is running.
pid_of() {
	local id pid
	while read -r id pid; do
		if [ "$id" = "$1" ]; then
			echo "$pid"
			return 0
		fi
	done < <(running)
	return 1
}

# frozen reports whether process $1 is stopped (SIGSTOP): see freeze.
frozen() { [ "$(ps -o state= -p "$1" 2>/dev/null | cut -c1)" = T ]; }

# srvr sends the four-letter word srvr to port $1 and prints the answer.
srvr() {
	local out
	# The port is passed as $1 of the inner shell, on purpose unexpanded here.
	# shellcheck disable=SC2016
	out=$(timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf srvr >&3 && cat <&3' _ "$1" 2>/dev/null) || true
	printf '%s' "$out"
}

mode_of() {
	local out
	out=$(srvr "$(port_of "$1")")
	if [[ "$out" =~ Mode:\ ([a-z]+) ]]; then
		echo "${BASH_REMATCH[1]}"
	elif [ -n "$out" ]; then
		echo "not-serving"
	else
		echo "down"
	fi
}

servers() {
	local n i out=""
	n=$(count)
	for ((i = 1; i <= n; i++)); do out+="${out:+,}127.0.0.1:$(port_of "$i")"; done
	echo "$out"
}

write_config() {
	local n=$1 i j d
	for ((i = 1; i <= n; i++)); do
		d=$(server_dir "$i")
		mkdir -p "$d/data"
		echo "$i" >"$d/data/myid"
		{
			echo "tickTime=$TICK"
			echo "initLimit=10"
			echo "syncLimit=5"
			echo "dataDir=$d/data"
			echo "clientPort=$(client_port "$i")"
			echo "clientPortAddress=127.0.0.1"
			echo "4lw.commands.whitelist=*"
			# Every client here comes from 127.0.0.1; the default of 60
			# connections per address would refuse speaker bench's crowd.
			echo "maxClientCnxns=0"
			# Sessions may last from 2 to 20 ticks, unless told otherwise:
			# speaker bench asks for long ones, to keep pings out of its counts.
			if [ -n "${ZK_MAX_SESSION_MS:-}" ]; then echo "maxSessionTimeout=$ZK_MAX_SESSION_MS"; fi
			echo "admin.enableServer=false"
			if [ "$n" -gt 1 ]; then
				# Each line names the server's client port too (after the ;),
				# so that /zookeeper/config tells clients every server to ask:
				# speaker status reads it to see every session's watches.
				for ((j = 1; j <= n; j++)); do
					echo "server.$j=127.0.0.1:$(peer_port "$j"):$(election_port "$j");127.0.0.1:$(client_port "$j")"
				done
			fi
		} >"$d/zoo.cfg"
	done
	echo "$n" >"$DIR/servers"
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ephemeral_range prints "LOW HIGH", the ports the kernel hands to outgoing
# connections (Linux's net.ipv4.ip_local_port_range, macOS's
# net.inet.ip.portrange), or nothing when it cannot tell.
ephemeral_range() {
	local lo hi
	if [ -r /proc/sys/net/ipv4/ip_local_port_range ]; then
		read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
	else
		lo=$(sysctl -n net.inet.ip.portrange.first 2>/dev/null) || return 0
		hi=$(sysctl -n net.inet.ip.portrange.last 2>/dev/null) || return 0
	fi
	echo "$lo $hi"
}

# warn_ephemeral warns once when a port of $1 servers' layout lies in the
# kernel's ephemeral range. Such a port works, until an outgoing connection
# (a browser's, a test's, one of ZooKeeper's own) happens to take it while
# the server is down: then the server cannot start again. internal/ensemble
# keeps the bench's and the tests' ports below the range for this reason.
warn_ephemeral() {
	local n=$1 lo hi i kind p top
	read -r lo hi <<<"$(ephemeral_range)" || true
	[ -n "${lo:-}" ] || return 0
	for ((i = 1; i <= n; i++)); do
		for kind in client peer election; do
			if [ "$n" -eq 1 ] && [ "$kind" != client ]; then continue; fi
			p=$("${kind}_port" "$i")
			if ((p >= lo && p <= hi)); then
				# The highest port of the layout is B + 2000 + n - 1 (B + 0 alone).
				top=$((lo - n))
				if [ "$n" -gt 1 ]; then top=$((top - 2000)); fi
				echo "ensemble.sh: warning: port $p (server $i's $kind port) is in the kernel's ephemeral range $lo-$hi, from which outgoing connections take their local ports: one may take it while the server is down, and the server then cannot start again. A ZK_BASE_PORT from 1024 to $top stays clear of it (the default 2181 does)" >&2
				return 0
			fi
		done
	done
}

# launch starts server $1 in the background, detached from this shell.
launch() {
	local d pid
	d=$(server_dir "$1")
	if pid=$(pid_of "$1"); then
		die "server $1 is already running (pid $pid)"
	fi
	if port_busy "$(port_of "$1")"; then
		die "port $(port_of "$1") is already in use: stop what listens there, or set ZK_BASE_PORT"
	fi
	zk_find || exit 1
	# The last two arguments are how running finds the server: keep them last.
	local -a opts
	read -ra opts <<<"${ZK_JAVA_OPTS:--Xmx256m}"
	# ZooKeeper's classpath first: a class-data-sharing archive given in
	# ZK_JAVA_OPTS (zk-cds.sh) applies only to a classpath that begins so.
	nohup setsid "$ZK_JAVA" "${opts[@]}" -cp "$ZK_CLASSPATH:$d" \
		"$MAIN" "$d/zoo.cfg" >>"$d/server.log" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$d/server.pid"
	if [ -n "${ZK_OWNER_PID:-}" ]; then outlive_owner_not "$pid"; fi
}

# outlive_owner_not starts a sentry for server pid $1 that checks every
# second whether ZK_OWNER_PID, the program that started this ensemble for
# itself, is still there. Once it is gone (killed, crashed, or it ended
# without stopping us), the sentry kills the server and removes $DIR; it
# ends by itself when the server does.
outlive_owner_not() {
	# shellcheck disable=SC2016 # expanded by the sentry's own shell
	nohup setsid bash -c '
		while kill -0 "$1" 2>/dev/null; do
			if ! kill -0 "$2" 2>/dev/null; then
				kill -KILL "$1" 2>/dev/null
				sleep 1
				rm -rf "$3"
				exit 0
			fi
			sleep 1
		done' zk-sentry "$1" "$ZK_OWNER_PID" "$DIR" >/dev/null 2>&1 </dev/null &
}

# wait_for waits until server $1 answers srvr; with "serving", until it has a mode.
wait_for() {
	local i=$1 want=$2 deadline=$((SECONDS + START_TIMEOUT)) m
	while ((SECONDS < deadline)); do
		m=$(mode_of "$i")
		if [ "$want" = serving ] && [[ "$m" =~ ^(leader|follower|standalone)$ ]]; then return 0; fi
		if [ "$want" = answering ] && [ "$m" != down ]; then return 0; fi
		# The pid launch wrote: running may not know the child until it execs.
		kill -0 "$(cat "$(server_dir "$i")/server.pid")" 2>/dev/null ||
			die "server $i exited; see $(server_dir "$i")/server.log"
		sleep 0.2
	done
	die "server $i did not start within ${START_TIMEOUT}s; see $(server_dir "$i")/server.log"
}

# report_started waits up to ZK_JOIN_TIMEOUT seconds (10) for server $1 to join the
# ensemble, then prints its mode. A server alone cannot serve: it needs a
# quorum of its peers running, so "not-serving" says which step is missing.
report_started() {
	local i=$1 verb=$2 deadline=$((SECONDS + ${ZK_JOIN_TIMEOUT:-10})) m
	m=$(mode_of "$i")
	while ! [[ "$m" =~ ^(leader|follower|standalone)$ ]] && ((SECONDS < deadline)); do
		sleep 0.2
		m=$(mode_of "$i")
	done
	if [ "$m" = not-serving ]; then
		m="not-serving (it joins once a majority of the $(count) servers is running)"
	fi
	echo "server $i $verb: $m"
}

stop_one() {
	local i=$1 sig=$2 pid k
	pid=$(pid_of "$i") || {
		rm -f "$(server_dir "$i")/server.pid"
		echo "server $i is not running"
		return 0
	}
	# A frozen server would hold SIGTERM until it is resumed.
	if [ "$sig" = TERM ]; then kill -CONT "$pid" 2>/dev/null || true; fi
	kill "-$sig" "$pid"
	for ((k = 0; k < 50; k++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
	rm -f "$(server_dir "$i")/server.pid"
	echo "server $i stopped ($sig)"
}

# stop_all stops every running server of $DIR, whatever its pid files or
# $DIR/servers say.
stop_all() {
	local n i sig=${1:-TERM}
	n=$(size)
	for ((i = 1; i <= n; i++)); do stop_one "$i" "$sig"; done
}

# freeze stops server $1 (SIGSTOP) for $2 seconds, then resumes it. Its
# variables are global: the EXIT trap uses them after it returns.
freeze() {
	frozen_id=$1 frozen_pid="" sleeper=""
	frozen_pid=$(pid_of "$frozen_id") || die "server $frozen_id is not running"
	# However this ends (time up, Ctrl-C, kill), the server is resumed: a
	# server left stopped would be a cut that never heals. (Not on SIGKILL:
	# then kill -CONT it yourself.)
	trap 'if [ -n "$sleeper" ]; then kill "$sleeper" 2>/dev/null || true; fi
		kill -CONT "$frozen_pid" 2>/dev/null || true
		echo "server $frozen_id resumed (SIGCONT)"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
	kill -STOP "$frozen_pid"
	echo "server $frozen_id (pid $frozen_pid) frozen (SIGSTOP) for $2 s: its clients' connections stay open but get no answer"
	# Sleep in the background and wait for it, so that a signal is acted on
	# at once, not when the sleep ends.
	sleep "$2" &
	sleeper=$!
	wait "$sleeper"
	sleeper=""
}

cmd=${1:-help}
shift || true
case $cmd in
start)
	n=${1:-3}
	[[ "$n" =~ ^[1-9]$ ]] || die "bad server count '$n': want 1 to 9" 2
	# Never rewrite the configs of live servers, pid files or not.
	live=$(running)
	if [ -n "$live" ]; then
		read -r i pid <<<"$live"
		die "server $i of the ensemble in $DIR is running (pid $pid); run: ensemble.sh stop"
	fi
	warn_ephemeral "$n"
	# Check every port first: better to refuse than to leave half an
	# ensemble running. (The election ports of a single server are unused.)
	for ((i = 1; i <= n; i++)); do
		ports=("$(client_port "$i")")
		if [ "$n" -gt 1 ]; then ports+=("$(peer_port "$i")" "$(election_port "$i")"); fi
		for p in "${ports[@]}"; do
			if port_busy "$p"; then
				die "port $p (server $i) is already in use: stop what listens there, or set ZK_BASE_PORT"
			fi
		done
	done
	mkdir -p "$DIR"
	DIR=$(cd "$DIR" && pwd)
	write_config "$n"
	for ((i = 1; i <= n; i++)); do launch "$i"; done
	for ((i = 1; i <= n; i++)); do wait_for "$i" serving; done
	"$0" status
	servers
	;;
status)
	n=$(count)
	printf '%-3s %-6s %-12s %s\n' id port mode pid
	for ((i = 1; i <= n; i++)); do
		if pid=$(pid_of "$i") && frozen "$pid"; then
			mode=frozen # it would not answer srvr
		else
			mode=$(mode_of "$i")
		fi
		printf '%-3s %-6s %-12s %s\n' "$i" "$(port_of "$i")" "$mode" "${pid:--}"
	done
	;;
kill)
	check_id "${1:-}"
	stop_one "$1" KILL
	;;
stop-server)
	check_id "${1:-}"
	stop_one "$1" TERM
	;;
start-server)
	check_id "${1:-}"
	launch "$1"
	wait_for "$1" answering
	report_started "$1" started
	;;
restart)
	check_id "${1:-}"
	stop_one "$1" TERM
	launch "$1"
	wait_for "$1" answering
	report_started "$1" restarted
	;;
freeze)
	check_id "${1:-}"
	[[ "${2:-}" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "bad SECONDS '${2:-}': want a number of seconds, such as 30 or 2.5" 2
	freeze "$1" "$2"
	;;
stop)
	stop_all
	;;
clean)
	# Its data goes next: no need to let the servers shut down in order.
	stop_all KILL
	# Delete no data that a server still uses.
	if [ -n "$(running)" ]; then die "servers of $DIR still run; not deleting it"; fi
	if [ -e "$DIR" ]; then
		rm -rf "$DIR"
		echo "removed $DIR"
	else
		echo "nothing to remove: $DIR does not exist"
	fi
	;;
pids)
	running
	;;
servers)
	servers
	;;
cli)
	id=${1:-1}
	check_id "$id"
	zk_find || exit 1
	exec "$ZK_CLI" -server "127.0.0.1:$(port_of "$id")"
	;;
help | -h | --help)
	usage
	;;
*)
	usage >&2
	die "unknown command '$cmd'" 2
	;;
esac
