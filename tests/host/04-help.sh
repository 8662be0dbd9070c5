# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): every option of
# every command in its --help and the man page.

# every option of every command (its --list-opts, made from the table
# its parser and --help are made from) is in that command's --help and
# in the man page, short and long; no command's --help shows another's
# options (record's has no -i, script's no -e)
bad=""
cmds=$("$B/perfregs-dump" --list-cmds)
for cmd in "" $cmds; do
	# shellcheck disable=SC2086
	help=$("$B/perfregs-dump" $cmd --help)
	# shellcheck disable=SC2086
	while IFS=$'\t' read -r s l _; do
		for o in $s $l; do
			[ "$o" = - ] && continue
			printf '%s\n' "$help" | grep -q -- "$o\b" || bad="$bad $o (${cmd:-no command} --help)"
			grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" docs/perfregs-dump.1 ||
				bad="$bad $o (man)"
		done
	done < <("$B/perfregs-dump" $cmd --list-opts)
done
"$B/perfregs-dump" record --help | grep -q -- '--input' && bad="$bad [record --help shows -i]"
"$B/perfregs-dump" script --help | grep -q -- '--event' && bad="$bad [script --help shows -e]"
"$B/perfregs-dump" convert --help | grep -q -- '--fields' && bad="$bad [convert --help shows --fields]"
# and each has an entry of its own, with its text, in a subsection of
# OPTIONS (tests/man_options.py)
if ! man=$(/usr/bin/python3 tests/man_options.py "$B/perfregs-dump" docs/perfregs-dump.1 2>&1); then
	bad="$bad no described OPTIONS entry: $man"
fi
if [ -n "$cmds" ] && [ -z "$bad" ]; then
	echo "ok - every option of every command is in its --help and in the man page, described in a subsection of OPTIONS; each --help shows its command's own"
else
	echo "not ok - every option of every command is in its --help and in the man page:${bad:- no commands listed}"
fi
