"""Speed of the tree DP (dp.treedp, and compiled: dp.forest) on synthetic sentences
shaped like real slot lattices.

Each sentence: a random projective tree over 25 words; 88% of the 26 slots have one state, the
rest 55 or 110 (one or two surface tokens). Nodes touching only one-state slots have J = 1..3
candidates; nodes touching a big slot have A ∈ [1, 8] distinct left and C ∈ [5, 50] distinct
right matrices and J ≈ 60% of the A×C pairs. Matrices are random nonnegative, dense or sparse.

The compiled rows run every sentence in one forest (its conversion from the trees not timed).

Run: .venv/bin/python bench/treedp_speed.py [sentences] [density ...]   (default: 40 1.0 0.1)
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads BLAS

import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from fstpunct.dp import forest  # noqa: E402
from fstpunct.dp.semiring import MaxProduct, SumProduct  # noqa: E402
from fstpunct.dp.treedp import Candidates, MatrixTree, inside, outside, sample, viterbi  # noqa: E402
from fstpunct.ud.tree import spans  # noqa: E402

WORDS = 25
BIG_SLOTS = 0.12


def random_heads(rng: np.random.Generator, lo: int, hi: int, parent: int = 0) -> list[tuple]:
    """(word, head) arcs of a random projective subtree over words lo..hi under ``parent``."""
    if lo > hi:
        return []
    h = int(rng.integers(lo, hi + 1))
    arcs = [(h, parent)]
    for a, b in ((lo, h - 1), (h + 1, hi)):
        while a <= b:
            end = int(rng.integers(a, b + 1))
            arcs += random_heads(rng, a, end, h)
            a = end + 1
    return arcs


def matrices(rng: np.random.Generator, count: int, size: int, density: float) -> np.ndarray:
    x = rng.uniform(0.0, 1.0, (count, size, size))
    if density < 1.0:  # sparse, but every state keeps a successor (as in a trimmed lattice)
        x *= rng.random((count, size, size)) < density
        for m in x:
            m[np.arange(size), rng.permutation(size)] = rng.uniform(0.5, 1.0, size)
    return x


def vector(rng: np.random.Generator, size: int) -> np.ndarray:
    x = rng.uniform(0.0, 1.0, size) * (rng.random(size) < 0.5)
    x[rng.integers(size)] = 1.0
    return x


def sentence(rng: np.random.Generator, density: float) -> MatrixTree:
    heads = [h for _, h in sorted(random_heads(rng, 1, WORDS))]
    states = [int(rng.choice([55, 110])) if rng.random() < BIG_SLOTS else 1
              for _ in range(WORDS + 1)]
    nodes = []
    for i, k in spans(heads):
        ni, nk = states[i], states[k]
        if ni == nk == 1:
            j = int(rng.integers(1, 4))
            a, c = int(rng.integers(1, j + 1)), int(rng.integers(1, j + 1))
            pairs = rng.permutation(a * c)[:j]
            pairs = np.concatenate([pairs, rng.integers(0, a * c, j - len(pairs))])
        else:
            a, c = int(rng.integers(1, 9)), int(rng.integers(5, 51))
            pairs = rng.permutation(a * c)[:max(1, round(0.6 * a * c))]
        w = rng.random(len(pairs))
        nodes.append(Candidates(w / w.sum(), matrices(rng, a, ni, density),
                                matrices(rng, c, nk, density), pairs // c, pairs % c))
    prefix = matrices(rng, 1, states[0], density)[0] + np.eye(states[0])
    return MatrixTree(heads, [vector(rng, s) for s in states], [vector(rng, s) for s in states],
                      prefix, nodes)


def timed(trees: list[MatrixTree], run) -> float:
    """Best of three passes, ms per sentence."""
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        for tree in trees:
            run(tree)
        best = min(best, time.perf_counter() - start)
    return 1e3 * best / len(trees)


def main(count: int = 40, densities: tuple[float, ...] = (1.0, 0.1)) -> None:
    print(f"{count} sentences of {WORDS} words; OPENBLAS_NUM_THREADS="
          f"{os.environ['OPENBLAS_NUM_THREADS']}; ms per sentence (best of 3)")
    for density in densities:
        rng = np.random.default_rng(0)
        trees = [sentence(rng, density) for _ in range(count)]
        big = [sum(len(s) > 1 for s in t.start) for t in trees]
        grouped = [sum(len(c.weights) > 3 for c in t.nodes) for t in trees]
        sample_rng = np.random.default_rng(1)
        best, total = (forest.from_trees(trees, semiring) for semiring in (MaxProduct, SumProduct))

        def reference(s: int, trees: list = trees) -> None:
            inside(trees[s])

        rows = {
            "inside": timed(trees, inside),
            "inside+outside": timed(trees, lambda t: outside(t, inside(t))),
            "viterbi": timed(trees, viterbi),
            "sample(size=1)": timed(trees, lambda t, r=sample_rng: sample(t, r, 1)),
            "compiled inside": timed([total], lambda f: forest.log_partition(f, reference))
            / count,
            "compiled in+out": timed([total], lambda f: forest.outside(f, reference)) / count,
            "compiled viterbi": timed([best], lambda f: forest.viterbi(f, reference)) / count,
            "compiled sample1": timed([total], lambda f, r=sample_rng: forest.sample(
                f, r, 1, reference)) / count,
        }
        print(f"density {density:g}: {np.mean(big):.1f} big slots, {np.mean(grouped):.1f} "
              "big nodes per sentence")
        for label, ms in rows.items():
            print(f"  {label:<16}{ms:8.2f} ms")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 40, tuple(float(x) for x in args[1:]) or (1.0, 0.1))
