#!/usr/bin/env python3
"""Second seeded draw of C++ AMP conformance cases for docs/conformance.md.

Usage: python3 docs/conformance_draw2.py <hcc git dir> [commit]

<hcc git dir> is a clone (bare or not) of github.com/ROCm/hcc. The suite
(amp-conformance/Tests) was removed from hcc's master by commit fe2ef95a, so
the draw reads the tree of its parent, aaac0a59 (the last commit holding the
suite), unless another commit is given.

Population: every test.cpp file under the kernel-heavy directories below,
sorted as Python sorts strings. Draw:
random.Random(20261129).sample(population, 25). Standard library only.
"""

import random
import subprocess
import sys

SEED = 20261129
COUNT = 25
COMMIT = "aaac0a59ecbc72870fd64bd81a201c9fe69731ec"
ROOT = "amp-conformance/Tests"
# The directories whose cases run kernel code.
DIRS = [
    "7_para_for_each",  # parallel_for_each, captures, compute domains
    "8_Corr_Sync_Cxx_AMP_Prog",  # tile barriers and synchronisation
    "2_Cxx_Lang_Exte/2_x_general",  # expressions and statements in amp code
]


def population(git_dir, commit):
    out = subprocess.run(
        ["git", "-C", git_dir, "ls-tree", "-r", "--name-only", commit, "--"]
        + [ROOT + "/" + d for d in DIRS],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return sorted(p for p in out.splitlines() if p.split("/")[-1] == "test.cpp")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    commit = sys.argv[2] if len(sys.argv) == 3 else COMMIT
    cases = population(sys.argv[1], commit)
    counts = {d: sum(p.startswith(ROOT + "/" + d + "/") for p in cases) for d in DIRS}
    print("# commit %s, seed %d, %d of %d cases" % (commit, SEED, COUNT, len(cases)))
    for d in DIRS:
        print("# population %s: %d" % (d, counts[d]))
    drawn = random.Random(SEED).sample(cases, COUNT)
    for i, p in enumerate(drawn, 1):
        print("%2d %s" % (i, p))


if __name__ == "__main__":
    main()
