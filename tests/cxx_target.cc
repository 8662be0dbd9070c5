// SPDX-License-Identifier: GPL-2.0
// A C++ program for the report tests: templates, a class hierarchy with
// virtual calls, lambdas, std::sort and std::map, so that its code and
// libstdc++'s carry mangled names (made-up stacks over its code:
// tests/mkunwind.c).  It prints a checksum so nothing is optimised away.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace shapes {
struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};

template <typename T> struct Square : Shape {
	T side;
	explicit Square(T s) : side(s) {}
	double area() const override { return double(side) * double(side); }
};

struct Circle : Shape {
	double r;
	explicit Circle(double radius) : r(radius) {}
	double area() const override { return 3.14159 * r * r; }
};
} // namespace shapes

template <typename C> static double total(const C &v)
{
	double sum = 0;

	for (const auto &s : v)
		sum += s->area();
	return sum;
}

int main(int argc, char **argv)
{
	std::vector<std::unique_ptr<shapes::Shape>> v;
	std::map<std::string, int> words;
	int n = argc > 1 ? std::atoi(argv[1]) : 1000;

	for (int i = 0; i < n; i++) {
		if (i % 2)
			v.push_back(std::make_unique<shapes::Square<int>>(i));
		else
			v.push_back(std::make_unique<shapes::Circle>(i * 0.5));
		words[std::to_string(i % 97)]++;
	}
	std::sort(v.begin(), v.end(), [](const auto &a, const auto &b) {
		return a->area() < b->area();
	});
	std::printf("%.1f %zu\n", total(v), words.size());
	return 0;
}
