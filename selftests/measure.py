# SPDX-License-Identifier: GPL-2.0
"""The scripts' counted assertions, as selftests/common.h's MEASURE():
a "# MEASURE QUANTITY VALUE OP THRESHOLD" line that tools/flaky.py
gathers for the test whose result line comes next."""

OPS = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
       "<": lambda a, b: a < b, "==": lambda a, b: a == b}


def measure(quantity, value, op, threshold):
    """Print the MEASURE line (call it before the test's report()) and say
    whether value OP threshold holds."""
    num = lambda v: str(int(v)) if float(v).is_integer() else f"{v:.3f}"
    print(f"# MEASURE {quantity} {num(value)} {op} {num(threshold)}")
    return OPS[op](value, threshold)
