#!/usr/bin/env bash
# zk-cds.sh ARCHIVE writes a class-data-sharing archive of the classes a
# ZooKeeper server loads as it starts. A JVM given
# -XX:SharedArchiveFile=ARCHIVE maps those classes from the archive instead
# of reading, parsing and verifying each of them: a server starts on about
# 40% less CPU. The tests start well over a hundred servers on two cores,
# so make test makes one archive (bin/zk.jsa) and the test kit uses it.
#
# It runs a standalone server once, on a free port, with Java listing the
# classes it loads, stops it when it serves, and dumps the archive for the
# classpath zk-env.sh finds. A JVM whose classpath does not begin with
# that one, or whose jars changed since, ignores the archive: it starts as
# it would without it. Does nothing when ARCHIVE exists.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=ensemble-scripts/zk-env.sh
. "$here/zk-env.sh"

[ $# -eq 1 ] || { echo "usage: zk-cds.sh ARCHIVE" >&2; exit 2; }
archive=$1
[ -s "$archive" ] && exit 0
zk_find || exit 1

tmp=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=$((30000 + RANDOM % 20000))
while port_busy "$port"; do port=$((30000 + RANDOM % 20000)); done

mkdir -p "$tmp/data"
printf 'tickTime=200\ndataDir=%s\nclientPort=%s\nclientPortAddress=127.0.0.1\n4lw.commands.whitelist=srvr\nadmin.enableServer=false\n' \
	"$tmp/data" "$port" >"$tmp/zoo.cfg"
"$ZK_JAVA" -XX:DumpLoadedClassList="$tmp/classes.lst" -cp "$ZK_CLASSPATH" \
	org.apache.zookeeper.server.quorum.QuorumPeerMain "$tmp/zoo.cfg" >"$tmp/server.log" 2>&1 &
pid=$!

# serving asks srvr, as ensemble.sh does: within 2 s, for a server that
# accepts a connection as it starts may leave it open without an answer.
# The port is passed as $1 of the inner shell, on purpose unexpanded here.
# shellcheck disable=SC2016
serving() {
	timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf srvr >&3 && cat <&3' _ "$port" 2>/dev/null | grep -q '^Mode: '
}
deadline=$((SECONDS + 30))
while [ "$SECONDS" -lt "$deadline" ]; do
	serving && break
	kill -0 "$pid" 2>/dev/null || { echo "zk-cds.sh: the server exited before it served:" >&2; tail -5 "$tmp/server.log" >&2; exit 1; }
	sleep 0.1
done
serving || { echo "zk-cds.sh: the server did not serve within 30 s" >&2; exit 1; }
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=""

mkdir -p "$(dirname "$archive")"
"$ZK_JAVA" -Xshare:dump -XX:SharedClassListFile="$tmp/classes.lst" -XX:SharedArchiveFile="$archive.tmp" \
	-cp "$ZK_CLASSPATH" >"$tmp/dump.log" 2>&1 || { echo "zk-cds.sh: the dump failed:" >&2; tail -5 "$tmp/dump.log" >&2; exit 1; }
mv "$archive.tmp" "$archive"
echo "zk-cds.sh: wrote $archive ($(wc -l <"$tmp/classes.lst") classes)"
