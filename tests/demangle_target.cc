// SPDX-License-Identifier: GPL-2.0
// A program whose functions carry mangled names for the demangling
// tests (tests/demangle_check.py): a C++ template's member,
// ns::W<int>::spin(std::vector<int>&), and three Rust names given to C++
// functions by asm labels (no rustc needed), real examples of the
// demanglers' own tests:
//   legacy, from libiberty's testsuite (rust-demangle-expected):
//     _ZN71_$LT$Test$u20$$u2b$$u20$$u27$static$u20$as$u20$foo..Bar$LT$Test$GT$$GT$3bar17h930b740aa94f1d3aE
//     <Test + 'static as foo::Bar<Test>>::bar
//   v0, from rustc-demangle's tests (src/v0.rs, demangle_utf8_idents and
//   demangle_crate_with_leading_digit):
//     _RNqCs4fqI2P2rA04_11utf8_identsu30____7hkackfecea1cbdathfdh9hlq6y
//     utf8_idents::საჭმელად_გემრიელი_სადილი
//     _RNvC6_123foo3bar
//     123foo::bar
// It prints the addresses of spin, the legacy and the first v0 function,
// then reads a line of stdin from main -> spin -> legacy -> v0 -> v0 ->
// read(), where a test stops it (mksnap), and exits.
#include <cstdio>
#include <unistd.h>
#include <vector>

extern "C" {
int rust_legacy(int fd)
	__asm__("_ZN71_$LT$Test$u20$$u2b$$u20$$u27$static$u20$as$u20$foo..Bar$LT$Test$GT$$GT$3bar17h930b740aa94f1d3aE");
int rust_v0_utf8(int fd)
	__asm__("_RNqCs4fqI2P2rA04_11utf8_identsu30____7hkackfecea1cbdathfdh9hlq6y");
int rust_v0(int fd) __asm__("_RNvC6_123foo3bar");
}

static volatile int sink;

__attribute__((noinline)) int rust_v0(int fd)
{
	char c = 0;
	int r = (int)read(fd, &c, 1);

	sink = sink + c;
	return r;
}

__attribute__((noinline)) int rust_v0_utf8(int fd)
{
	int r = rust_v0(fd);

	sink = sink + 1;
	return r;
}

__attribute__((noinline)) int rust_legacy(int fd)
{
	int r = rust_v0_utf8(fd);

	sink = sink + 2;
	return r;
}

namespace ns {
template <typename T> struct W {
	static int spin(std::vector<T> &v);
};

template <typename T> __attribute__((noinline)) int W<T>::spin(std::vector<T> &v)
{
	int r = rust_legacy(0);

	for (T &x : v)
		sink = sink + int(x);
	return r;
}
} // namespace ns

int main()
{
	std::vector<int> v(4, 1);

	std::printf("%p %p %p\n", reinterpret_cast<void *>(&ns::W<int>::spin),
		    reinterpret_cast<void *>(rust_legacy), reinterpret_cast<void *>(rust_v0_utf8));
	std::fflush(stdout);
	return ns::W<int>::spin(v) < 0;
}
