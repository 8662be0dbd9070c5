# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): inline frames
# from DWARF (inline.c) in every output, against perf; a hostile nesting;
# a unit's index within the budget.

# a program whose hot code is inlined, live (tests/inline_check.py: four lines)
if gcc -O2 -g -fno-optimize-sibling-calls -fPIE -pie -o "$T/inl_prog" \
	tests/inline_target.c 2>/dev/null; then
	/usr/bin/python3 tests/inline_check.py "$B" "$T/inl_prog" tests/inline_target.c
else
	echo "not ok - inline frames: tests/inline_target.c could not be built (gcc)"
fi

# A hostile nesting: 200 always_inline functions, each inlined into the
# one before, and a sample in the innermost: the innermost 32 shown
# (INLINE_DEPTH_MAX), said once, in a moment.
what="inline frames: 200 nested inlined functions at an address are cut at the innermost 32, said once, at once"
{
	printf '#include <stdio.h>\nstatic volatile int v;\n'
	printf '__attribute__((noinline)) static void *at(void) { __asm__ volatile(""); return (char *)__builtin_return_address(0) - 1; }\n'
	printf 'static inline __attribute__((always_inline)) int f200(int x) { printf("%%p\\n", at()); return x + v; }\n'
	for i in $(seq 199 -1 1); do
		printf 'static inline __attribute__((always_inline)) int f%d(int x) { return f%d(x + 1) * 3; }\n' "$i" $((i + 1))
	done
	printf 'int main(void) { return f1(v) == 7; }\n'
} > "$T/inl_deep.c"
if gcc -O2 -g -no-pie -o "$T/inl_deep" "$T/inl_deep.c" 2>/dev/null &&
   a=$("$T/inl_deep") && "$B/mkhostile" "$T/inl_deep.prf" -a "$a" -m "$T/inl_deep"; then
	bad=""
	timeout -s KILL 20 "$B/perfregs-dump" script -i "$T/inl_deep.prf" -f json \
		> "$T/inl_deep.json" 2> "$T/inl_deep.err" || bad="$bad [script failed or took over 20 s]"
	n=$(head -1 "$T/inl_deep.json" | /usr/bin/python3 -c '
import json, sys
r = json.loads(sys.stdin.readline())
names = [f["sym"] for f in r.get("inline", [])]
print(len(names), names[0] if names else "-", names[-1] if names else "-", r.get("sym", "-"))')
	[ "$n" = "32 f200 f169 main+0x0" ] || [ "${n% *}" = "32 f200 f169" ] ||
		bad="$bad [inline: '$n', want 32 f200 ... f169]"
	[ "$(grep -c "more than 32 nested" "$T/inl_deep.err")" = 1 ] ||
		bad="$bad [stderr: $(head -c 300 "$T/inl_deep.err")]"
	if [ -z "$bad" ]; then
		echo "ok - $what"
	else
		echo "not ok - $what:$bad"
	fi
else
	echo "not ok - $what (no program built, or no recording)"
fi


# A unit of 400 functions under a budget of 4 KiB: its index of
# function ranges holds what the budget has room for, not the whole
# unit first; the function past them shows no inline frames, said once.
what="inline frames: a unit's index of functions stays within the budget (PERFREGS_INLINE_BYTES=4096), its cut said once"
{
	printf '#include <stdio.h>\nstatic volatile int v;\n'
	printf '__attribute__((noinline)) static void *at(void) { __asm__ volatile(""); return (char *)__builtin_return_address(0) - 1; }\n'
	printf 'static inline __attribute__((always_inline)) int step(int x) { if (x == 7) printf("%%p\\n", at()); return x + v; }\n'
	for i in $(seq 0 399); do
		printf '__attribute__((noinline)) int f%d(int x) { return step(x + %d) * 3; }\n' "$i" "$i"
	done
	printf 'int main(void) { return f0(7) == 1; }\n'
} > "$T/inl_many.c"
if gcc -O2 -g -no-pie -o "$T/inl_many" "$T/inl_many.c" 2>/dev/null &&
   a=$("$T/inl_many") && "$B/mkhostile" "$T/inl_many.prf" -a "$a" -m "$T/inl_many"; then
	inl_names() {	# the inline frames of the sample, with a budget of $1 bytes
		PERFREGS_INLINE_BYTES=$1 "$B/perfregs-dump" script -i "$T/inl_many.prf" -f json \
			2> "$T/inl_many.err" | head -1 | /usr/bin/python3 -c '
import json, sys
print(" ".join(f["sym"] for f in json.loads(sys.stdin.readline()).get("inline", [])) or "-")'
	}
	full=$(inl_names 0)
	small=$(inl_names 4096)
	said=$(grep -c "more functions than its index may hold" "$T/inl_many.err")
	if [ "$full" = step ] && [ "$small" = - ] && [ "$said" = 1 ]; then
		echo "ok - $what"
	else
		echo "not ok - $what: inline frames '$full' with the whole budget, '$small' with 4 KiB, said $said times"
	fi
else
	echo "not ok - $what (no program built, or no recording)"
fi

# A C++ function inlined: named by its linkage name demangled as perf
# demangles (no parameters), the DWARF's name in sym_raw; --no-demangle
# the linkage name.
what="inline frames: a C++ function inlined is ns::W<int>::step (sym_raw _ZN2ns1WIiE4stepEi), mangled with --no-demangle"
printf '%s\n' '#include <cstdio>' 'static volatile int v;' \
	'__attribute__((noinline)) static void *at() { __asm__ volatile(""); return (char *)__builtin_return_address(0) - 1; }' \
	'namespace ns { template <typename T> struct W { __attribute__((always_inline)) static inline T step(T x) { std::printf("%p\n", at()); return x + v; } }; }' \
	'int main() { return ns::W<int>::step(v) == 7; }' > "$T/inl_cxx.cc"
if g++ -O2 -g -no-pie -o "$T/inl_cxx" "$T/inl_cxx.cc" 2>/dev/null && a=$("$T/inl_cxx") &&
   "$B/mkhostile" "$T/inl_cxx.prf" -a "$a" -m "$T/inl_cxx"; then
	j=$("$B/perfregs-dump" script -q -i "$T/inl_cxx.prf" -f json | head -1)
	k=$("$B/perfregs-dump" script -q -i "$T/inl_cxx.prf" -f json --no-demangle | head -1)
	case "$j" in
	*'"inline":[{"sym":"ns::W<int>::step","sym_raw":"_ZN2ns1WIiE4stepEi","srcline":"inl_cxx.cc:4"}]'*)
		case "$k" in
		*'"inline":[{"sym":"_ZN2ns1WIiE4stepEi","srcline":"inl_cxx.cc:4"}]'*) echo "ok - $what" ;;
		*) echo "not ok - $what: --no-demangle: '$(printf '%s' "$k" | head -c 400)'" ;;
		esac ;;
	*) echo "not ok - $what: '$(printf '%s' "$j" | head -c 400)'" ;;
	esac
else
	echo "not ok - $what (no program built, or no recording)"
fi
