"""E-step time on each kind of pool (issue 23, item 4): this process, 2 local processes, and a
dask LocalCluster of 1 and of 2 workers; the overhead of dask against the local pool.

Each pool gets the training batch once, then runs two E-steps over en_ewt train (the +NC model's
first iteration, as ``fstpunct train --lang en``): the first includes starting the workers and
building the slot lattices, the second is what every later EM iteration costs (wall seconds).
All E-steps must give the same log likelihood (checked).
Usage: python bench/parallel_bench.py [--sentences N]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads BLAS

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fstpunct.fst.grammar import load_grammar  # noqa: E402
from fstpunct.model.punct import Settings  # noqa: E402
from fstpunct.model.train import expected_counts, initial_model, share_batch  # noqa: E402
from fstpunct.parallel import make_pool  # noqa: E402
from fstpunct.ud.release import split_source  # noqa: E402
from fstpunct.ud.slots import to_slots  # noqa: E402

POOLS = {"serial": {"jobs": 1}, "local 2": {"jobs": 2}, "dask 1": {"dask_workers": 1},
         "dask 2": {"dask_workers": 2}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sentences", type=int, help="only the first N training sentences")
    args = parser.parse_args()
    sents = [to_slots(s) for s in split_source("en", "train").sentences()]
    sents = [s for s in sents if s.trainable][:args.sentences]
    grammar = load_grammar(Path(__file__).resolve().parents[1] / "grammars" / "en.rules")
    model = initial_model(sents, grammar, "nunberg", None, Settings())
    batch = model.prepare(sents)
    print(f"E-step over {len(batch)} en_ewt train sentences; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; wall seconds")
    seconds: dict[str, float] = {}
    likelihood = set()
    for name, options in POOLS.items():
        with make_pool(**options) as pool:
            start = time.perf_counter()
            share_batch(pool, batch, model)
            times = []
            for _ in range(2):
                counts = expected_counts(pool, model, batch)
                times.append(time.perf_counter() - start)
                start = time.perf_counter()
                likelihood.add(counts.log_z)
        seconds[name] = times[1]
        print(f"  {name:<8} first {times[0]:6.2f} s (with the batch sent), then {times[1]:6.2f} s")
    assert len(likelihood) == 1, f"the pools disagree: {likelihood}"
    print(f"speed-up of 2 workers: local {seconds['serial'] / seconds['local 2']:.2f}x, dask "
          f"{seconds['dask 1'] / seconds['dask 2']:.2f}x; dask 2 against local 2: "
          f"{seconds['dask 2'] / seconds['local 2']:.2f}x (overhead "
          f"{seconds['dask 2'] - seconds['local 2']:+.2f} s per E-step)")


if __name__ == "__main__":
    main()
