"""Where an E-step's time goes on each kind of pool (issue 23, item 4: Dask's overhead): per
EM iteration, the wall time of the tasks seen from here and, summed over the tasks as measured
inside the workers, their wall time, CPU time of the task's thread, the process's user and
system time, minor page faults, and the bytes of the pickled results; and the time to share θ
and φ. ``--env NAME=VALUE`` sets an environment variable before the pools start (dask's
workers inherit it: e.g. ``MALLOC_TRIM_THRESHOLD_``).
Usage: python bench/estep_tasks.py [--sentences N] [--pools serial,local2,dask1,dask2]
       [--iterations K] [--env NAME=VALUE ...] [--tasks]
"""
from __future__ import annotations

import argparse
import os
import pickle
import resource
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads BLAS

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fstpunct.fst.grammar import load_grammar  # noqa: E402
from fstpunct.model import train  # noqa: E402
from fstpunct.model.punct import Settings  # noqa: E402
from fstpunct.parallel import make_pool, share_value  # noqa: E402
from fstpunct.ud.release import split_source  # noqa: E402
from fstpunct.ud.slots import to_slots  # noqa: E402

POOLS = {"serial": {"jobs": 1}, "local2": {"jobs": 2}, "dask1": {"dask_workers": 1},
         "dask2": {"dask_workers": 2}}
FIELDS = ("wall", "cpu", "user", "sys", "faults", "bytes")


def measured(bounds: tuple[int, int]) -> dict[str, float]:
    """(In a worker.) One E-step task, with what it cost this worker."""
    before, start, cpu = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter(), \
        time.thread_time()
    result = train._estep_task(bounds)
    wall, cpu = time.perf_counter() - start, time.thread_time() - cpu
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {"wall": wall, "cpu": cpu, "user": after.ru_utime - before.ru_utime,
            "sys": after.ru_stime - before.ru_stime,
            "faults": after.ru_minflt - before.ru_minflt,
            "bytes": len(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)),
            "pid": os.getpid()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--pools", default=",".join(POOLS))
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--tasks", action="store_true", help="print every task of the last")
    args = parser.parse_args()
    for setting in args.env:
        name, _, val = setting.partition("=")
        os.environ[name] = val
    sents = [to_slots(s) for s in split_source("en", "train").sentences()]
    sents = [s for s in sents if s.trainable][:args.sentences]
    grammar = load_grammar(Path(__file__).resolve().parents[1] / "grammars" / "en.rules")
    model = train.initial_model(sents, grammar, "nunberg", None, Settings())
    batch = model.prepare(sents)
    n = len(batch)
    bounds = [(a, min(a + train.CHUNK, n)) for a in range(0, n, train.CHUNK)]
    print(f"{n} en_ewt train sentences in {len(bounds)} tasks; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {' '.join(args.env)}")
    for name in args.pools.split(","):
        with make_pool(**POOLS[name]) as pool:
            train.share_batch(pool, batch, model)
            for iteration in range(args.iterations):
                start = time.perf_counter()
                share_value(pool, train._PARAMS, (model.theta, model.channel))
                shared = time.perf_counter()
                tasks = list(pool.imap(measured, bounds))
                end = time.perf_counter()
                sums = {f: sum(t[f] for t in tasks) for f in FIELDS}
                print(f"{name:<7} iteration {iteration}: θ shared {shared - start:5.2f} s, tasks "
                      f"{end - shared:6.2f} s wall; in the workers: wall {sums['wall']:6.2f} s, "
                      f"CPU {sums['cpu']:6.2f} s (user {sums['user']:6.2f}, sys "
                      f"{sums['sys']:5.2f}), {sums['faults']:8.0f} minor faults, results "
                      f"{sums['bytes'] / 1e6:6.1f} MB", flush=True)
            if args.tasks:
                for t in tasks:
                    print("   ", "  ".join(f"{f} {t[f]:.3f}" if isinstance(t[f], float)
                                           else f"{f} {t[f]}" for f in (*FIELDS, "pid")))


if __name__ == "__main__":
    main()
