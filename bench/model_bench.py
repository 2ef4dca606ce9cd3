"""Benchmarks of the punctuation model (issue 3): figures and ratios against their references.

* decode: ``fstpunct decode`` on en_ewt test, against the time the ``conllu`` library needs just
  to parse the same file (goal: ≤ 5×), and its peak memory;
* train (``--train``): one full EM run on en_ewt train (goal: ≤ 10 minutes on 2 cores), and its
  peak memory.

Each command runs in a child process, timed by wall clock and by its CPU time (user + sys: what
a busy machine inflates least); peak memory is the child's max RSS. The conllu reference is
timed in this process and the decode in three children, each by wall clock and by CPU time,
best of 3; the ratio is taken on each.
Usage: python bench/model_bench.py [--model M] [--train] [--iterations N]
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import conllu

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fstpunct.ud.release import find_treebank

FSTPUNCT = str(Path(sys.executable).with_name("fstpunct"))


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def child(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + sys) and peak RSS (MiB) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    cpu = _cpu(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    seconds = time.perf_counter() - start
    cpu = _cpu(resource.RUSAGE_CHILDREN) - cpu
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, cpu, max(peak, before) / 1024


def conllu_seconds(path: Path, repeat: int = 3) -> tuple[float, float]:
    """Wall and CPU seconds to parse ``path`` with conllu, best of ``repeat``."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        start, cpu = time.perf_counter(), _cpu(resource.RUSAGE_SELF)
        with path.open(encoding="utf-8") as f:
            n = sum(1 for _ in conllu.parse_incr(f))
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, _cpu(resource.RUSAGE_SELF) - cpu)
    assert n > 0
    return best, best_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="en")
    parser.add_argument("--train", action="store_true", help="also time a full EM run")
    parser.add_argument("--iterations", type=int, default=10)
    args = parser.parse_args()
    test = find_treebank("en_ewt", "test")
    reference, reference_cpu = conllu_seconds(test)
    runs = [child([FSTPUNCT, "decode", "--model", args.model, str(test), "-o", os.devnull])
            for _ in range(3)]
    seconds, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
    peak = max(r[2] for r in runs)
    print(f"decode en_ewt test: {seconds:.2f} s wall ({cpu:.2f} s CPU), peak {peak:.0f} MiB; "
          f"conllu parse {reference:.2f} s ({reference_cpu:.2f} s CPU); ratio "
          f"{seconds / reference:.1f}x wall, {cpu / reference_cpu:.1f}x CPU (goal <= 5x)")
    if args.train:
        out = Path("models") / "bench-en"
        seconds, _, peak = child([FSTPUNCT, "train", "--lang", "en", "--jobs", "2", "--iterations",
                               str(args.iterations), "-o", str(out)])
        print(f"train en_ewt train ({args.iterations} EM iterations, 2 jobs): "
              f"{seconds / 60:.1f} min, peak {peak:.0f} MiB; ratio to the 10-minute goal "
              f"{seconds / 600:.2f}")


if __name__ == "__main__":
    main()
