#!/usr/bin/env python3
"""Fourth seeded draw of C++ AMP conformance cases for docs/conformance.md.

Usage: python3 docs/conformance_draw4.py <hcc git dir> [commit]

<hcc git dir> is a clone (bare or not) of github.com/ROCm/hcc. The suite
(amp-conformance/Tests) was removed from hcc's master by commit fe2ef95a, so
the draw reads the tree of its parent, aaac0a59 (the last commit holding the
suite), unless another commit is given.

Population: every test.cpp file under the kernel-heavy directories of the
second draw (its population function), sorted as Python sorts strings, less
every case that the first (docs/conformance_draw.py), second
(docs/conformance_draw2.py) or third (docs/conformance_draw3.py) draw took.
The earlier draws are recomputed here with their own scripts' population and
sampling code (the third draw's own exclusion included), so the exclusion is
reproducible. Draw: random.Random(20261205).sample(population, 20).
Standard library only.
"""

import importlib.util
import os
import random
import sys

SEED = 20261205
COUNT = 20
COMMIT = "aaac0a59ecbc72870fd64bd81a201c9fe69731ec"


def load(name):
    """Imports docs/<name>.py, the script of an earlier draw."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def earlier_draws(git_dir, commit):
    """The cases of the first, second and third draws, each drawn as its
    script does (the third from its population less the first two)."""
    third = load("conformance_draw3")
    first, second = third.earlier_draws(git_dir, commit)
    excluded = set(first) | set(second)
    cases = [p for p in third.population(git_dir, commit) if p not in excluded]
    return first, second, random.Random(third.SEED).sample(cases, third.COUNT)


def population(git_dir, commit):
    """The second draw's population (the same kernel-heavy directories)."""
    return load("conformance_draw2").population(git_dir, commit)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    commit = sys.argv[2] if len(sys.argv) == 3 else COMMIT
    first, second, third = earlier_draws(sys.argv[1], commit)
    excluded = set(first) | set(second) | set(third)
    whole = population(sys.argv[1], commit)
    cases = [p for p in whole if p not in excluded]
    print(
        "# commit %s, seed %d, %d of %d cases (%d of the %d left out: drawn before)"
        % (commit, SEED, COUNT, len(cases), len(whole) - len(cases), len(whole))
    )
    second = load("conformance_draw2")
    for d in second.DIRS:
        n = sum(p.startswith(second.ROOT + "/" + d + "/") for p in cases)
        print("# population %s: %d" % (d, n))
    drawn = random.Random(SEED).sample(cases, COUNT)
    for i, p in enumerate(drawn, 1):
        print("%2d %s" % (i, p))


if __name__ == "__main__":
    main()
