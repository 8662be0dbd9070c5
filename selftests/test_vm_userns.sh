#!/bin/bash
# The guest runner enters the host root with switch_root, not chroot: a
# chrooted process cannot unshare a user namespace (EPERM), so these fail
# if tools/vm/init goes back to chroot.  Root, and uid 65534 when the
# kernel lets unprivileged users create user namespaces, must get one with
# themselves mapped to uid 0.  KTAP on stdout.
set -u
echo "TAP version 13"
echo "1..2"
if [ ! -e /proc/self/ns/user ]; then
	echo "ok 1 userns_as_root # SKIP the kernel has no user namespaces"
	echo "ok 2 userns_as_nobody # SKIP the kernel has no user namespaces"
	exit 0
fi
failed=0
# $1 number, $2 name, then the command; it must print 0 (uid in the namespace)
try() {
	local n=$1 name=$2 out
	shift 2
	if out=$("$@" 2>&1) && [ "$out" = 0 ]; then
		echo "ok $n $name"
	else
		echo "not ok $n $name # $(printf '%s' "$out" | tr '\n' ' ')"
		failed=1
	fi
}
try 1 userns_as_root unshare -Ur id -u
clone=$(cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null || echo 1)
max=$(cat /proc/sys/user/max_user_namespaces 2>/dev/null || echo 0)
if [ "$clone" != 1 ] || [ "$max" = 0 ]; then
	echo "ok 2 userns_as_nobody # SKIP kernel.unprivileged_userns_clone=$clone, user.max_user_namespaces=$max"
else
	try 2 userns_as_nobody setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare -Ur id -u
fi
exit $failed
