#!/bin/bash
# The modules of perfregs-dump include each other in the layers that
# decoder.h lists (" * layer N: module... - what they are"), lowest first:
#  - a file includes no header of a layer above its own;
#  - the includes between the modules go round in no circle;
#  - every file is in a layer, and no module is in two.
# A module is foo.c with foo.h; only an #include "..." of a file in the
# directory counts (not <...>, not ../lib/).  Prints one KTAP line, and
# what is wrong after a "not ok"; exits 1 then.
# usage: tests/layers.sh [DIR]
set -u
D=${1:-tools/perfregs-dump}
declare -A layer
bad=()
files=0
includes=0
edges=

while read -r n mods; do
	for m in $mods; do
		[ -n "${layer[$m]:-}" ] &&
			bad+=("$m is in layer ${layer[$m]} and in layer $n")
		layer[$m]=$n
	done
done < <(sed -n 's/^ \* layer \([0-9][0-9]*\): \(\([^ ]\| [^-]\)*\) - .*/\1 \2/p' "$D/decoder.h" 2>/dev/null)
[ ${#layer[@]} -gt 0 ] || bad+=("$D/decoder.h lists no layers")

for f in "$D"/*.c "$D"/*.h; do
	[ -e "$f" ] || continue
	files=$((files + 1))
	name=${f##*/}
	m=${name%.*}
	if [ -z "${layer[$m]:-}" ]; then
		bad+=("$name is in no layer of decoder.h")
		continue
	fi
	while read -r h; do
		[ -e "$D/$h" ] || continue	# none of ours: the compiler says so
		hm=${h%.*}
		[ "$hm" = "$m" ] && continue
		includes=$((includes + 1))
		edges+="$m $hm"$'\n'
		l=${layer[$hm]:-}
		[ -n "$l" ] || continue		# itself in no layer: said above
		if [ "$l" -gt "${layer[$m]}" ]; then
			bad+=("$name (layer ${layer[$m]}) includes $h (layer $l)")
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"/]*\)".*/\1/p' "$f")
done

# tsort names each circle it breaks after "input contains a loop", one
# module a line, each including the next: "a -> b -> a" here
while read -r circle; do
	bad+=("the includes go round in a circle: $circle")
done < <(printf '%s' "$edges" | tsort 2>&1 >/dev/null | awk '
	/input contains a loop/ { if (c != "") print c " -> " first; c = ""; next }
	{ sub(/^tsort: /, ""); if (c == "") { c = $0; first = $0 } else c = c " -> " $0 }
	END { if (c != "") print c " -> " first }')

what="perfregs-dump's includes keep the layers of decoder.h, with no circle"
if [ ${#bad[@]} -eq 0 ]; then
	echo "ok - $what: $files files, $includes includes between modules"
else
	echo "not ok - $what"
	printf '# %s\n' "${bad[@]}"
	exit 1
fi
