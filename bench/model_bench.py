"""Benchmarks of the punctuation model (issues 3 and 23): figures and ratios against their
references, each measured in the same run.

* decode: ``fstpunct decode`` on en_ewt test, against a process that only parses the same file
  with the ``conllu`` library (both whole processes, start-up included, run in turn after a
  warm-up of each; medians of ``--repeat`` runs each and of the pairs' ratios, by wall clock and
  by CPU time; goal ≤ 2×), and its peak memory; with ``--floor``,
  also a process that only imports what decode imports and reads the file (then also loads the
  model): what no decode can go below;
* EM (``--em``): one EM iteration on en_ewt train as every iteration after the first runs
  (E-step on 2 local workers kept from the first iteration, then the M-step on 2 threads, of
  ``--attach-iterations`` L-BFGS iterations, default ``fstpunct train``'s; timed in a child
  process after the batch is prepared and a first E-step) against one ``fstpunct decode`` of
  en_ewt train (goal ≤ 3×);
* train (``--train``): one full EM run on en_ewt train (goal: ≤ 10 minutes on 2 cores), and its
  peak memory.

Each command runs in a child process, timed by wall clock and by its CPU time (user + sys, its
workers included: what a busy machine inflates least); peak memory is the child's max RSS. The
machine's load average is printed first: on a shared machine the ratios are what count.
fstpunct's bytecode is compiled first (as installed packages have it).
Usage: python bench/model_bench.py [--model M] [--floor] [--em [--attach-iterations N]] [--train]
[--iterations N]
[--repeat K]
"""
from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fstpunct.model.train import ATTACH_ITERATIONS
from fstpunct.parallel import LocalPool
from fstpunct.ud.release import find_treebank

ROOT = Path(__file__).resolve().parents[1]

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


PARSE_ONLY = ("import sys, conllu\n"
              "with open(sys.argv[1], encoding='utf-8') as f:\n"
              "    n = sum(1 for _ in conllu.parse_incr(f))\n"
              "assert n > 0\n")


# what every decode does before any inference: its imports and reading the file with
# fstpunct's validating reader (then also loading the model)
FLOOR = ("import sys\n"
         "import fstpunct.cli.decode\n"
         "from fstpunct.ud.treebank import read_file\n"
         "n = sum(1 for _ in read_file(sys.argv[1]))\n"
         "if sys.argv[2:]:\n"
         "    fstpunct.load(sys.argv[2])\n")


def medians(cmd: list[str], repeat: int) -> tuple[float, float, float]:
    """Median wall and CPU seconds of ``repeat`` runs of a child, and its largest peak RSS."""
    return _summary([child(cmd) for _ in range(repeat)])


def _summary(runs: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
            max(r[2] for r in runs))


def paired(cmd: list[str], reference: list[str], repeat: int
           ) -> tuple[tuple[float, float, float], tuple[float, float, float], float, float]:
    """``cmd`` and ``reference`` run in turn (one warm-up of each, then ``repeat`` pairs, A B A
    B …): the medians of each (as :func:`medians`) and the medians of the pairs' wall and CPU
    ratios, which hold when the machine's speed drifts during the run."""
    for warm_up in (cmd, reference):
        child(warm_up)
    runs = [(child(cmd), child(reference)) for _ in range(repeat)]
    return (_summary([a for a, _ in runs]), _summary([b for _, b in runs]),
            statistics.median(a[0] / b[0] for a, b in runs),
            statistics.median(a[1] / b[1] for a, b in runs))


def _workers_cpu(pool: LocalPool) -> float:
    """CPU seconds (user + sys) used so far by a local pool's live worker processes."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pool._pool._processes:  # live workers are not yet counted in RUSAGE_CHILDREN
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def em_iteration(attach_iterations: int) -> None:
    """(Child mode.) Prepare en_ewt train as ``fstpunct train --lang en`` does, run the first
    E-step on 2 local workers (they build every slot lattice's shape), then time one EM
    iteration as every later one runs: E-step (θ and φ sent again, the workers kept) then
    M-step (at most ``attach_iterations`` L-BFGS iterations, on as many threads as the E-step
    has workers, as ``fstpunct train`` runs it); print JSON."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from fstpunct.fst.grammar import load_grammar
    from fstpunct.model.mstep import fit
    from fstpunct.model.punct import Settings
    from fstpunct.model.train import expected_counts, initial_model, share_batch
    from fstpunct.ud.release import split_source
    from fstpunct.ud.slots import to_slots

    sents = [s for s in map(to_slots, split_source("en", "train").sentences()) if s.trainable]
    grammar = load_grammar(Path(__file__).resolve().parents[1] / "grammars" / "en.rules")
    settings = Settings()
    model = initial_model(sents, grammar, "nunberg", None, settings)
    batch = model.prepare(sents)
    with LocalPool(2) as pool:
        share_batch(pool, batch, model)
        start = time.perf_counter()
        expected_counts(pool, model, batch)
        first = time.perf_counter() - start
        start, cpu = time.perf_counter(), _cpu(resource.RUSAGE_SELF)
        workers = _workers_cpu(pool)
        counts = expected_counts(pool, model, batch)
        e_step = time.perf_counter() - start
        e_cpu = _workers_cpu(pool) - workers
        fit(model.theta, batch.data, counts.targets, settings.l2, attach_iterations,
            model.attach.init_theta(settings.token_cost), threads=pool.workers)
        seconds = time.perf_counter() - start
        m_cpu = _cpu(resource.RUSAGE_SELF) - cpu
    print(json.dumps({"seconds": seconds, "e_step": e_step, "m_step": seconds - e_step,
                      "first_e_step": first, "cpu": e_cpu + m_cpu, "sentences": len(batch)}))



def compile_fstpunct() -> None:
    """Compile the bytecode of the fstpunct that child processes import (this tree's, or
    ``PYTHONPATH``'s), as an installed package has it: a checkout may run with
    PYTHONDONTWRITEBYTECODE, which would make every timed process compile fstpunct first."""
    package = subprocess.run([sys.executable, "-c", "import fstpunct; print(fstpunct.__file__)"],
                             capture_output=True, text=True, check=True).stdout.strip()
    compileall.compile_dir(Path(package).parent, quiet=1)

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="en")
    parser.add_argument("--em", action="store_true",
                        help="also time one EM iteration against a decode of en_ewt train")
    parser.add_argument("--train", action="store_true", help="also time a full EM run")
    parser.add_argument("--floor", action="store_true",
                        help="also time a process that only imports what decode imports and "
                             "reads the file (then also loads the model)")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5, help="runs of each timed process")
    parser.add_argument("--attach-iterations", type=int, default=ATTACH_ITERATIONS,
                        help="L-BFGS iterations of the timed M-step (default: fstpunct train's, "
                             "%(default)s)")
    parser.add_argument("--em-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.em_child:
        return em_iteration(args.attach_iterations)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    compile_fstpunct()
    test = find_treebank("en_ewt", "test")
    (seconds, cpu, peak), (reference, reference_cpu, _), wall_ratio, cpu_ratio = paired(
        [FSTPUNCT, "decode", "--model", args.model, str(test), "-o", os.devnull],
        [sys.executable, "-c", PARSE_ONLY, str(test)], args.repeat)
    print(f"decode en_ewt test: {seconds:.2f} s wall ({cpu:.2f} s CPU), peak {peak:.0f} MiB; "
          f"a process parsing it with conllu {reference:.2f} s ({reference_cpu:.2f} s CPU); "
          f"medians of {args.repeat}, run in turn; ratio {seconds / reference:.2f}x wall, "
          f"{cpu / reference_cpu:.2f}x CPU; median of the pairs' ratios {wall_ratio:.2f}x "
          f"wall, {cpu_ratio:.2f}x CPU (goal <= 2x)")
    if args.floor:
        floor = [medians([sys.executable, "-c", FLOOR, str(test), *extra], args.repeat)
                 for extra in ([], [args.model])]
        print(f"floor: imports + reading en_ewt test {floor[0][0]:.2f} s wall "
              f"({floor[0][1]:.2f} s CPU, {floor[0][1] / reference_cpu:.2f}x the conllu "
              f"process), + loading the model {floor[1][0]:.2f} s ({floor[1][1]:.2f} s CPU, "
              f"{floor[1][1] / reference_cpu:.2f}x)")
    if args.em:
        train = find_treebank("en_ewt", "train")
        decode, decode_cpu, _ = medians([FSTPUNCT, "decode", "--model", args.model, str(train),
                                         "-o", os.devnull], max(1, args.repeat // 2))
        out = subprocess.run([sys.executable, __file__, "--em-child", "--attach-iterations",
                              str(args.attach_iterations)], check=True,
                             capture_output=True, text=True,
                             env={**os.environ, "OPENBLAS_NUM_THREADS": "1"}).stdout
        em = json.loads(out.strip().splitlines()[-1])
        print(f"one EM iteration on en_ewt train ({em['sentences']} sentences; E-step on 2 "
              f"kept workers {em['e_step']:.2f} s (the first iteration's, which builds the "
              f"lattices' shapes: {em['first_e_step']:.2f} s), M-step of at most "
              f"{args.attach_iterations} L-BFGS iterations {em['m_step']:.2f} s): "
              f"{em['seconds']:.2f} s "
              f"wall ({em['cpu']:.2f} s CPU); decode of en_ewt train {decode:.2f} s wall "
              f"({decode_cpu:.2f} s CPU); ratio {em['seconds'] / decode:.2f}x wall, "
              f"{em['cpu'] / decode_cpu:.2f}x CPU (goal <= 3x)")
    if args.train:
        out_dir = Path("models") / "bench-en"
        seconds, _, peak = child([FSTPUNCT, "train", "--lang", "en", "--jobs", "2", "--iterations",
                                  str(args.iterations), "-o", str(out_dir)])
        print(f"train en_ewt train ({args.iterations} EM iterations, 2 jobs): "
              f"{seconds / 60:.1f} min, peak {peak:.0f} MiB; ratio to the 10-minute goal "
              f"{seconds / 600:.2f}")


if __name__ == "__main__":
    main()
