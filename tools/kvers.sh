#!/bin/sh
# Print the kernel versions of the test matrix that are installed here,
# one per line: the newest Debian 6.1 and the newest Debian 6.12 amd64
# kernel whose headers are in /lib/modules/VERSION/build.
#   tools/kvers.sh            the matrix
#   tools/kvers.sh 6.12       the version a short name stands for
set -eu
pick() {
	ls -d /lib/modules/"$1"*-amd64/build 2>/dev/null |
		sed 's,^/lib/modules/,,; s,/build$,,' | sort -V | tail -n1
}
case "${1:-}" in
"")	for s in 6.1.0- 6.12.; do pick "$s"; done ;;
6.1)	pick 6.1.0- ;;
6.12)	pick 6.12. ;;
*)	[ -d "/lib/modules/$1" ] && echo "$1" ;;
esac
