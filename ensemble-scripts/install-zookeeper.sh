#!/usr/bin/env bash
# install-zookeeper.sh makes sure Apache ZooKeeper and Java are installed,
# and says where they are. `make deps` runs it; running it again changes
# nothing. It looks in the same places as zk-env.sh, in this order:
#   1. $ZOOKEEPER_HOME, when it holds an unpacked Apache tarball;
#   2. Debian's or Ubuntu's `zookeeper` package, installed with apt-get
#      (through sudo unless we are root); the package brings Java;
#   3. Homebrew's `zookeeper` formula on macOS.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=ensemble-scripts/zk-env.sh
. "$here/zk-env.sh"

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "install-zookeeper: need root to run: $*" >&2
		return 1
	fi
}

report() {
	echo "ZooKeeper found: $ZK_HOME ($ZK_LAYOUT layout)"
	echo "Version: $(zk_version || echo unknown)"
	echo "Java: $ZK_JAVA"
}

if zk_find 2>/dev/null; then
	if [ -n "${ZOOKEEPER_HOME:-}" ] && [ "$ZK_LAYOUT" != tarball ]; then
		echo "install-zookeeper: ignoring ZOOKEEPER_HOME=$ZOOKEEPER_HOME: no bin/zkServer.sh and lib/zookeeper-*.jar there" >&2
	fi
	report
	exit 0
fi
if [ -n "${ZOOKEEPER_HOME:-}" ]; then
	if zk_tarball_ok "$ZOOKEEPER_HOME"; then
		# The tarball is fine; what failed is finding Java for it.
		echo "install-zookeeper: ZOOKEEPER_HOME=$ZOOKEEPER_HOME holds ZooKeeper, but no Java was found: install Java 11+ (or set JAVA_HOME), or unset ZOOKEEPER_HOME to install a package" >&2
		exit 1
	fi
	echo "install-zookeeper: ZOOKEEPER_HOME=$ZOOKEEPER_HOME is not an Apache ZooKeeper tarball (no bin/zkServer.sh and lib/zookeeper-*.jar); installing a package instead" >&2
fi

if command -v apt-get >/dev/null 2>&1; then
	echo "Installing Debian's zookeeper package (it brings Java)..."
	as_root apt-get update -q
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q zookeeper
elif command -v brew >/dev/null 2>&1; then
	echo "Installing Homebrew's zookeeper..."
	brew install zookeeper
	command -v java >/dev/null 2>&1 || brew install openjdk
else
	echo "install-zookeeper: no apt-get or brew here. Install Java 11+ and the Apache ZooKeeper tarball (https://zookeeper.apache.org/releases.html), then set ZOOKEEPER_HOME to where you unpacked it." >&2
	exit 1
fi

if ! zk_find; then
	echo "install-zookeeper: installed, but ZooKeeper or Java still cannot be found" >&2
	exit 1
fi
report
