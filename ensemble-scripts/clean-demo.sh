#!/usr/bin/env bash
# clean-demo.sh is `make clean-demo`: the clean start of every section of
# the course. What an earlier run leaves makes wrong pictures: lines in
# out/out.txt put a "gap" between the runs that looks like a slow failover,
# and an ensemble started again on its old data numbers its znodes and
# epochs on from where it stopped, unlike the docs.
#
# It stops make demo-tmux's session if it runs, stops every server of the
# ensemble and deletes its folder (ensemble-scripts/ensemble.sh clean), and
# empties out/: out.txt, the demo's files, the run-alongs' logs (out/ and
# its tracked .gitkeep stay). First it
# looks for a program still writing in out/ (a speaker, a lock holder, a
# log the shell redirects there): it would write on into a deleted file,
# and join the next ensemble's election on the same ports. It names them
# and changes nothing until they are stopped.
#
# Environment: DEMO_OUT (default out/ under the repository), ENSEMBLE_DIR
# (default $DEMO_OUT/ensemble), TMUX_SESSION (default zkspeaker).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out_root=${DEMO_OUT:-$root/out}
export ENSEMBLE_DIR=${ENSEMBLE_DIR:-$out_root/ensemble}

# writers prints "pid command line" for each process with a file open for
# writing under $out_root, outside the ensemble's folder (its servers are
# stopped below). A reader such as tail -F is no writer: it follows the
# file again once it is made anew. Without /proc (macOS) it finds none.
writers() {
	local fd pid flags
	[ -d /proc/self/fd ] || return 0
	# (find fails on the processes it may not look into, and those that end.)
	{ find /proc/[0-9]*/fd -maxdepth 1 -lname "$out_root/*" ! -lname "$ENSEMBLE_DIR/*" 2>/dev/null || true; } |
		while read -r fd; do
			pid=${fd#/proc/}
			pid=${pid%%/*}
			flags=$(sed -n 's/^flags:[[:space:]]*//p' "/proc/$pid/fdinfo/${fd##*/}" 2>/dev/null) || continue
			# O_WRONLY is 1 and O_RDWR 2, in the low bits of the octal flags.
			if [ -n "$flags" ] && (((8#$flags & 3) != 0)); then
				echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
			fi
		done | sort -u -n
}

case $out_root in / | "$root" | "$root"/ | "${HOME:-/}") echo "clean-demo: will not delete $out_root" >&2 && exit 2 ;; esac
if tmux has-session -t "${TMUX_SESSION:-zkspeaker}" 2>/dev/null; then
	OUT=$out_root/out.txt "$here/demo-tmux.sh" stop
fi
busy=$(writers)
if [ -n "$busy" ]; then
	echo "clean-demo: these still write in $out_root; stop them first (Ctrl-C in their terminals, or kill $(cut -d' ' -f1 <<<"$busy" | paste -sd' ')):" >&2
	echo "  ${busy//$'\n'/$'\n'  }" >&2
	exit 1
fi
# ensemble.sh names each server it stops; those that did not run are noise.
cleaned=$("$here/ensemble.sh" clean) || exit 1 # it said why; delete nothing
grep -v 'is not running$' <<<"$cleaned" || true
# out/ itself stays, with the .gitkeep the repository tracks in it: the
# chapters write their logs there (`2> out/duck.log`), and git status stays
# clean. (An older clean-demo deleted out/.gitkeep; this puts it back.)
mkdir -p "$out_root"
find "$out_root" -mindepth 1 -maxdepth 1 ! -name .gitkeep -exec rm -rf {} +
if [ "$out_root" = "$root/out" ] && [ ! -e "$out_root/.gitkeep" ]; then
	: >"$out_root/.gitkeep"
fi
echo "emptied $out_root: start again with an empty out.txt and a new ensemble"
