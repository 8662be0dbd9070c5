#!/bin/sh
# Print the kernel versions of the test matrix that are installed here,
# one per line: the newest Debian 6.1 and the newest Debian 6.12 amd64
# kernel whose headers are in /lib/modules/VERSION/build, then the
# newest of each in the PREEMPT_RT flavour (rt-amd64).
#   tools/kvers.sh            the matrix
#   tools/kvers.sh 6.12-rt    the version a short name stands for
#                             (6.1, 6.12, 6.1-rt, 6.12-rt)
# (PERFREGS_MODULES: another /lib/modules, for the tests)
set -eu
MODS=${PERFREGS_MODULES:-/lib/modules}
pick() {	# PREFIX FLAVOUR
	ls -d "$MODS"/"$1"*-"$2"/build 2>/dev/null |
		sed "s,^$MODS/,,; s,/build\$,," |
		grep -v -e '-rt-amd64$' -e '-cloud-amd64$' |
		sort -V | tail -n1
}
pick_rt() {	# PREFIX
	ls -d "$MODS"/"$1"*-rt-amd64/build 2>/dev/null |
		sed "s,^$MODS/,,; s,/build\$,," | sort -V | tail -n1
}
case "${1:-}" in
"")	pick 6.1.0- amd64; pick 6.12. amd64; pick_rt 6.1.0-; pick_rt 6.12. ;;
6.1)	pick 6.1.0- amd64 ;;
6.12)	pick 6.12. amd64 ;;
6.1-rt)	pick_rt 6.1.0- ;;
6.12-rt) pick_rt 6.12. ;;
*)	[ -d "$MODS/$1" ] && echo "$1" ;;
esac
