# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): C++ and Rust
# names demangled (libiberty, demangle.c) in every output, against perf;
# hostile mangled names.

# a C++ program with Rust names, live (tests/demangle_check.py: three lines)
if g++ -O1 -g -fno-optimize-sibling-calls -fPIE -pie -o "$T/dm_prog" \
	tests/demangle_target.cc 2>/dev/null; then
	/usr/bin/python3 tests/demangle_check.py "$B" "$T/dm_prog"
else
	echo "not ok - demangling: tests/demangle_target.cc could not be built (g++)"
fi

# hostile mangled names in a file a recording names: a C++ name of 318
# bytes whose back-references double its output 30 times (libiberty alone
# takes minutes and gigabytes on it) is cut at the budget in a moment;
# a name holding ESC shows it as '?' in text and \u001b in JSON
bomb=$(/usr/bin/python3 -c '
def sub(k):	# S_, S0_, ... S9_, SA_ ...: the Itanium ABI seq-id
    d, s, k = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", "", k - 1
    while True:
        s, k = d[k % 36] + s, k // 36
        if not k:
            return "S" + s + "_"
print("_Z1fISt4pairIiiE" + "".join("S_I" + sub(i) * 2 + "E" for i in range(2, 32)) + "Ev")')
esc=_ZN2ns3$'\e'[m4spinEv
{
	for n in "$bomb" "$esc"; do
		printf '\t.text\n\t.globl "%s"\n\t.type "%s", @function\n"%s":\n\tnop\n\tret\n' "$n" "$n" "$n"
	done
	printf '\t.globl main\nmain:\n\txorl %%eax, %%eax\n\tret\n\t.section .note.GNU-stack,"",@progbits\n'
} > "$T/dm_hostile.S"
what="demangling: a mangled name whose output doubles 30 times is cut at the budget (512 bytes) at once; ESC in a demangled name is '?' in text, \\u001b in JSON"
if cc -no-pie -o "$T/dm_hostile" "$T/dm_hostile.S" 2>/dev/null; then
	bad=""
	for n in bomb esc; do
		a=0x$(nm "$T/dm_hostile" | LC_ALL=C grep -a " T _Z1f" | cut -c1-16)
		[ $n = esc ] && a=0x$(nm "$T/dm_hostile" | LC_ALL=C grep -a " T _ZN2ns" | cut -c1-16)
		"$B/mkhostile" "$T/dm_$n.prf" -a "$a" -m "$T/dm_hostile" || bad="$bad [mkhostile $n]"
		timeout -s KILL 20 "$B/perfregs-dump" script -q -i "$T/dm_$n.prf" -F sym > "$T/dm_$n.txt" ||
			bad="$bad [$n: script failed or took over 20 s]"
		timeout -s KILL 20 "$B/perfregs-dump" script -q -i "$T/dm_$n.prf" -f json > "$T/dm_$n.json" ||
			bad="$bad [$n: script -f json failed or took over 20 s]"
	done
	sym=$(sed -n 's/^ *(\(.*\))$/\1/p' "$T/dm_bomb.txt")
	case "$sym" in
	"f<std::pair<int, int>, f<std::pair<int, int>, std::pair<int, int> >, "*"+0x0") ;;
	*) bad="$bad [the bomb: '${sym:0:200}']" ;;
	esac
	[ "${#sym}" -le 320 ] || bad="$bad [the bomb's name is ${#sym} bytes]"
	grep -qF "\"sym_raw\":\"${bomb:0:200}" "$T/dm_bomb.json" || bad="$bad [the bomb's sym_raw]"
	LC_ALL=C grep -q $'\e' "$T/dm_esc.txt" "$T/dm_esc.json" && bad="$bad [ESC reached an output]"
	grep -qF "(ns::?[m::spin+0x0)" "$T/dm_esc.txt" || bad="$bad [text: $(cat -v "$T/dm_esc.txt")]"
	grep -qF '"sym":"ns::\u001b[m::spin+0x0","sym_raw":"_ZN2ns3\u001b[m4spinEv+0x0"' \
		"$T/dm_esc.json" || bad="$bad [json: $(head -c 300 "$T/dm_esc.json")]"
	if [ -z "$bad" ]; then
		echo "ok - $what"
	else
		echo "not ok - $what:$bad"
	fi
else
	echo "not ok - $what (no program built)"
fi

# A PLT entry of a C++ function: the function's name demangled, then
# "@plt", as perf's dso__synthesize_plt_symbols() shows it (the
# demangler alone takes "_ZN..@plt" for no C++ name and leaves it raw);
# --no-demangle and JSON's sym_raw keep the raw name.
what="demangling: a C++ function's PLT entry is 'std::chrono::_V2::steady_clock::now@plt' (raw with --no-demangle and in sym_raw)"
printf '#include <chrono>\nint main() { long n = 0; for (int i = 0; i < 3; i++) n += std::chrono::steady_clock::now().time_since_epoch().count(); return n == 1; }\n' > "$T/dm_plt.cc"
if g++ -O1 -no-pie -o "$T/dm_plt" "$T/dm_plt.cc" 2>/dev/null &&
   a=0x$(objdump -d -j .plt -j .plt.sec "$T/dm_plt" | grep "<_ZNSt6chrono3_V212steady_clock3nowEv@plt>:" | cut -d' ' -f1) &&
   [ "$a" != 0x ] && "$B/mkhostile" "$T/dm_plt.prf" -a "$a" -m "$T/dm_plt"; then
	j=$("$B/perfregs-dump" -q -i "$T/dm_plt.prf" -f json | head -1)
	t=$("$B/perfregs-dump" -q -i "$T/dm_plt.prf" --no-demangle | head -1)
	case "$j" in
	*'"sym":"std::chrono::_V2::steady_clock::now@plt+0x0","sym_raw":"_ZNSt6chrono3_V212steady_clock3nowEv@plt+0x0"'*)
		case "$t" in
		*'(_ZNSt6chrono3_V212steady_clock3nowEv@plt+0x0)'*) echo "ok - $what" ;;
		*) echo "not ok - $what: --no-demangle: '$t'" ;;
		esac ;;
	*) echo "not ok - $what: '$(printf '%s' "$j" | head -c 400)'" ;;
	esac
else
	echo "not ok - $what: the program or its recording could not be made (g++, objdump)"
fi

# A Rust v0 name whose punycode identifier is printed past the output
# budget: libiberty's Rust demangler malloc()s that identifier's buffer
# and frees it after printing it, so a longjmp() out of the print (as
# the C++ demangler is left) leaked it: 14 MB over 100000 demanglings
# (a table read again by the descriptor budget demangles its names
# again).  Rust's output past the budget is dropped now, the
# demangler left to finish (tests/demangleloop: the heap's growth).
what="demangling: a Rust name cut at the budget inside a punycode identifier leaks nothing (100000 times)"
rn=$(/usr/bin/python3 -c "print('_R' + 'Nv' * 10 + 'C3foo' + ''.join('50' + 'a' * 50 for _ in range(9)) + 'u30____7hkackfecea1cbdathfdh9qlzfkid')")
if [ -x "$B/demangleloop" ] && got=$("$B/demangleloop" "$rn" 100000 | head -1); then
	grew=${got%% *}
	if [ "$grew" -lt 65536 ]; then
		echo "ok - $what (the heap grew $grew bytes)"
	else
		echo "not ok - $what: the heap grew $grew bytes"
	fi
else
	echo "not ok - $what: tests/demangleloop did not run"
fi

# A name cut at the budget ends on a whole UTF-8 character: a C++ name
# of 101 components, each of three 2-byte characters but the first,
# whose output reaches the 511th byte in the middle of one
what="demangling: a name cut at the budget ends on a whole UTF-8 character"
un=$(/usr/bin/python3 -c "print('_ZN2ab' + '6\u00e9\u00e9\u00e9' * 100 + 'E')")
if [ -x "$B/demangleloop" ] && "$B/demangleloop" "$un" 1 | tail -1 | /usr/bin/python3 -c '
import sys
b = sys.stdin.buffer.read().rstrip(b"\n")
b.decode("utf-8")	# raises on a cut character
sys.exit(0 if len(b) >= 500 else 1)'; then
	echo "ok - $what"
else
	echo "not ok - $what"
fi
