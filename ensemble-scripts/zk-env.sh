#!/usr/bin/env bash
# zk-env.sh finds an installed Apache ZooKeeper and a Java runtime.
#
# Sourced by the other scripts in this folder, and run by the Go test harness
# (internal/testkit/zktest), so that every tool looks for ZooKeeper the same way:
#   1. $ZOOKEEPER_HOME, when it holds the Apache tarball layout (bin/, lib/);
#   2. Debian's or Ubuntu's `zookeeper` package (/usr/share/java/zookeeper.jar);
#   3. Homebrew's `zookeeper` formula (its libexec holds the tarball layout).
#
# Run directly, it prints the result as KEY=value lines:
#   ZK_JAVA, ZK_CLASSPATH, ZK_CLI, ZK_HOME, ZK_LAYOUT
# and exits 1 with a one-line reason when ZooKeeper or Java is missing.

# zk_find sets ZK_JAVA, ZK_CLASSPATH, ZK_CLI, ZK_HOME and ZK_LAYOUT, or prints
# why it cannot and returns 1.
zk_find() {
	ZK_HOME="" ZK_LAYOUT="" ZK_CLASSPATH="" ZK_CLI=""
	local brew_home=""
	if [ -n "${ZOOKEEPER_HOME:-}" ] && zk_tarball_ok "$ZOOKEEPER_HOME"; then
		ZK_HOME=$ZOOKEEPER_HOME ZK_LAYOUT=tarball
	elif [ -f /usr/share/java/zookeeper.jar ]; then
		ZK_HOME=/usr/share/zookeeper ZK_LAYOUT=debian
	elif command -v brew >/dev/null 2>&1 &&
		brew_home="$(brew --prefix zookeeper 2>/dev/null)/libexec" &&
		zk_tarball_ok "$brew_home"; then
		ZK_HOME=$brew_home ZK_LAYOUT=homebrew
	else
		if [ -n "${ZOOKEEPER_HOME:-}" ]; then
			echo "ZooKeeper not found: ZOOKEEPER_HOME=$ZOOKEEPER_HOME has no bin/zkServer.sh and lib/*.jar; run \`make deps\`" >&2
		else
			echo "ZooKeeper not found: run \`make deps\`" >&2
		fi
		return 1
	fi

	case $ZK_LAYOUT in
	debian)
		# The package's jar names its dependencies in its manifest. slf4j-simple,
		# when present, sends the server's log to stderr, which we capture.
		ZK_CLASSPATH=/usr/share/java/zookeeper.jar
		if [ -f /usr/share/java/slf4j-simple.jar ]; then
			ZK_CLASSPATH=$ZK_CLASSPATH:/usr/share/java/slf4j-simple.jar
		fi
		ZK_CLI=/usr/share/zookeeper/bin/zkCli.sh
		;;
	*)
		ZK_CLASSPATH="$ZK_HOME/lib/*"
		ZK_CLI=$ZK_HOME/bin/zkCli.sh
		;;
	esac

	if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
		ZK_JAVA=$JAVA_HOME/bin/java
	elif command -v java >/dev/null 2>&1; then
		ZK_JAVA=$(command -v java)
	else
		echo "Java not found: ZooKeeper is at $ZK_HOME but needs a Java runtime; run \`make deps\`" >&2
		return 1
	fi
}

# zk_tarball_ok reports whether $1 looks like an unpacked Apache ZooKeeper.
zk_tarball_ok() {
	[ -f "$1/bin/zkServer.sh" ] && compgen -G "$1/lib/zookeeper-*.jar" >/dev/null
}

# zk_version prints the version that the found ZooKeeper reports of itself.
zk_version() {
	"$ZK_JAVA" -cp "$ZK_CLASSPATH" org.apache.zookeeper.version.VersionInfoMain 2>/dev/null | head -n 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	zk_find || exit 1
	printf 'ZK_JAVA=%s\nZK_CLASSPATH=%s\nZK_CLI=%s\nZK_HOME=%s\nZK_LAYOUT=%s\n' \
		"$ZK_JAVA" "$ZK_CLASSPATH" "$ZK_CLI" "$ZK_HOME" "$ZK_LAYOUT"
fi
