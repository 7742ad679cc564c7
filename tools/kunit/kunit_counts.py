#!/usr/bin/env python3
"""Count the test cases in kunit.py --json result files.

    tools/kunit/kunit_counts.py LABEL=FILE [LABEL=FILE ...]

Prints one line per file ("x86_64: 130 passed, 0 failed, 0 skipped") and
the failing cases by name. A missing or unreadable file counts as one
failed case: a kernel that did not build or boot ran no test. Skipped cases
are reported, never counted as passed. Exits 1 when anything failed.
"""
import json
import sys


def leaves(group, path):
    """Yield (name, status) for every test case below a kunit.py group."""
    for case in group.get("test_cases", []):
        yield "/".join(path + [case["name"]]), case["status"]
    for sub in group.get("sub_groups", []):
        yield from leaves(sub, path + [sub["name"]])


def count(label, path):
    try:
        with open(path) as f:
            cases = list(leaves(json.load(f), []))
    except (OSError, ValueError) as err:
        print(f"{label}: no results ({err})")
        return 0, 1, 0
    passed = sum(status == "PASS" for _, status in cases)
    skipped = sum(status == "SKIP" for _, status in cases)
    failures = [name for name, status in cases if status not in ("PASS", "SKIP")]
    if not cases:
        failures = ["(no test case ran)"]
    print(f"{label}: {passed} passed, {len(failures)} failed, {skipped} skipped")
    for name in failures:
        print(f"    FAIL {name}")
    return passed, len(failures), skipped


def main(args):
    totals = [0, 0, 0]
    for arg in args:
        label, _, path = arg.partition("=")
        for i, n in enumerate(count(label, path)):
            totals[i] += n
    return totals


if __name__ == "__main__":
    passed, failed, skipped = main(sys.argv[1:])
    sys.exit(1 if failed else 0)
