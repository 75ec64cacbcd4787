#!/usr/bin/env python3
"""Seeded draw of C++ AMP conformance cases for docs/conformance.md.

Usage: python3 docs/conformance_draw.py <hcc git dir> [commit]

<hcc git dir> is a clone (bare or not) of github.com/ROCm/hcc. The suite
(amp-conformance/Tests) was removed from hcc's master by commit fe2ef95a, so
the draw reads the tree of its parent, aaac0a59 (the last commit holding the
suite), unless another commit is given.

Population: every *.cpp file under the kernel chapters below, sorted as
Python sorts strings. Draw: random.Random(20261128).sample(population, 40).
Standard library only.
"""

import random
import subprocess
import sys

SEED = 20261128
COUNT = 40
COMMIT = "aaac0a59ecbc72870fd64bd81a201c9fe69731ec"
ROOT = "amp-conformance/Tests"
# The chapters whose cases run kernels or check restrict(amp) code. This copy
# of the suite has no atomics or math chapter (spec chapters 6 and 9).
CHAPTERS = [
    "2_Cxx_Lang_Exte",  # language extensions: restrict(amp) rules
    "7_para_for_each",  # parallel_for_each, compute domains, tiled launches
    "8_Corr_Sync_Cxx_AMP_Prog",  # tile_static, barriers, synchronisation
]


def population(git_dir, commit):
    out = subprocess.run(
        ["git", "-C", git_dir, "ls-tree", "-r", "--name-only", commit, "--"]
        + [ROOT + "/" + c for c in CHAPTERS],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return sorted(p for p in out.splitlines() if p.endswith(".cpp"))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    commit = sys.argv[2] if len(sys.argv) == 3 else COMMIT
    cases = population(sys.argv[1], commit)
    counts = {c: sum(p.startswith(ROOT + "/" + c + "/") for p in cases) for c in CHAPTERS}
    print("# commit %s, seed %d, %d of %d cases" % (commit, SEED, COUNT, len(cases)))
    for c in CHAPTERS:
        print("# population %s: %d" % (c, counts[c]))
    drawn = random.Random(SEED).sample(cases, COUNT)
    for i, p in enumerate(drawn, 1):
        print("%2d %s" % (i, p))


if __name__ == "__main__":
    main()
