#!/usr/bin/env python3
"""Whether two `famsim run --out` directories hold the same results.

    tests/support/same_run.py DIR_A DIR_B

Compares stats.json (host-time fields, the sim.kernel setting and each run's own directory name
left out), transactions.csv and the DRAM command logs in dram/, byte for byte where the runs wrote
them. Prints nothing and exits 0 when they match; otherwise prints what differs on one line and
exits 1. Used by tests/cli/kernel_equivalence.sh and tests/bench/compare_binaries.sh.
"""
import filecmp
import json
import os
import sys

# Host time, and which executable ran (two builds being compared differ in it by design).
HOST_FIELDS = ("host_seconds", "requests_per_host_second", "peak_rss_mib", "famsim_version")


def stats(run_dir):
    # The run's own directory (in file names) reads as OUT.
    text = open(os.path.join(run_dir, "stats.json")).read().replace(run_dir, "OUT")
    s = json.loads(text)
    for k in HOST_FIELDS:
        s.get("sim", {}).pop(k, None)
    s.get("config", {}).get("sim", {}).pop("kernel", None)
    changes = s.get("config_changes") or {}
    if isinstance(changes.get("changes"), list):
        changes["changes"] = [c for c in changes["changes"] if c.get("key") != "sim.kernel"]
    return s


def same_tree(a, b):
    if os.path.isdir(a) != os.path.isdir(b):
        return False
    if not os.path.isdir(a):
        return True
    c = filecmp.dircmp(a, b)
    if c.left_only or c.right_only or c.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, c.common_files, shallow=False)
    return not mismatch and not errors and all(
        same_tree(os.path.join(a, d), os.path.join(b, d)) for d in c.common_dirs)


def main(a, b):
    sa, sb = stats(a), stats(b)
    if sa != sb:
        keys = sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))
        print("stats.json differs in " + ", ".join(keys))
        return 1
    if not same_tree(os.path.join(a, "dram"), os.path.join(b, "dram")):
        print("DRAM command logs differ")
        return 1
    ta, tb = (os.path.join(d, "transactions.csv") for d in (a, b))
    if os.path.exists(ta) != os.path.exists(tb) or (
            os.path.exists(ta) and not filecmp.cmp(ta, tb, shallow=False)):
        print("transaction logs differ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*[os.path.normpath(d) for d in sys.argv[1:3]]))
