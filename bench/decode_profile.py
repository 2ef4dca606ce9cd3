"""Where a decode's time and memory go (issue 23): CPU seconds (``time.process_time``) and
minor page faults (first touches of memory: ``getrusage``'s ``ru_minflt``) per stage of
``fstpunct decode`` of en_ewt test in one process, run as the command runs it (the heap
settled, sentences streamed from the file to the output in chunks of 500, none kept once
decoded, one slot cache of sum and max slots holding the punctemes the candidates need, the
loaded model frozen for the collector and the collector off), and the process's peak RSS.

Stages: the interpreter's start-up (with this script's own few imports); imports; loading the
model; reading with the validating reader; the model-language check; then per chunk decode's
own stages (``fstpunct.apps.decode.annotate``'s stage hook): ``to_slots``, featurising, the
Attach probabilities, the slot lattices and their stacks (built when a slot string first
comes, extended when a later chunk needs more punctemes), the rest of the forest layout and
candidates, the kernels' transposed stacks, the compiled Viterbi and inside passes (one
traversal), the MISC items and bracketed T′; then writing. A stage's faults are where the
process's memory grew, not all it allocated (freed memory is reused without faults).
``--repeat`` runs in fresh processes; the minimum of each stage's CPU time is printed (the
least disturbed by a busy machine), the median of its faults, the largest peak.
Usage: python bench/decode_profile.py [--model M] [--repeat K] [FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


Cost = tuple[float, float]  # CPU seconds, minor page faults


def _now() -> Cost:
    """CPU seconds and minor page faults of this process so far."""
    return time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _plus(a: Cost, b: Cost, sign: int = 1) -> Cost:
    return a[0] + sign * b[0], a[1] + sign * b[1]


def stages(path: str, model_name: str) -> dict[str, Cost]:
    """(Child mode.) CPU seconds and minor page faults per stage of one decode of ``path``,
    streamed as the command runs it: decode's own stages (:data:`fstpunct.apps.decode.Mark`),
    with what reading, the model-language check on the first 1,000 sentences (its one count,
    ``Model._check``; collecting their tokens and reading the marks' width twins, in
    ``Model._watched``, fall in the stage around them), ``SlotCache.get`` (slot lattices and
    stacks, built or extended), the rest of ``Inference.forest`` (layout, candidates, kernels)
    and writing cost taken out of the stage they happen in."""
    clock = [_now()]
    zero = (0.0, 0.0)
    spent: dict[str, Cost] = {"interpreter start-up": clock[0]}
    charged_since_mark = [zero]  # the cost of charged calls since the last mark
    nested: list[Cost] = []  # per running charged call: the cost of the charged ones in it

    def mark(name: str) -> None:
        now = _now()
        own = _plus(_plus(now, clock[0], -1), charged_since_mark[0], -1)
        spent[name] = _plus(spent.get(name, zero), own)
        clock[0], charged_since_mark[0] = now, zero

    import gc

    import fstpunct.cli.decode  # noqa: F401  (what decode imports; BLAS on one thread)
    from fstpunct.api import load
    from fstpunct.apps.decode import annotate
    from fstpunct.model.punct import Inference, SlotCache
    from fstpunct.parallel.heap import settle
    from fstpunct.ud.treebank import read_file
    mark("imports")
    settle()  # as the command does before it loads the model

    def charged(stage: str, function):
        """``function`` with its CPU time and faults charged to ``stage``."""
        def run(*args, **kwargs):
            start = _now()
            nested.append(zero)
            try:
                return function(*args, **kwargs)
            finally:
                total = _plus(_now(), start, -1)
                spent[stage] = _plus(_plus(spent.get(stage, zero), total), nested.pop(), -1)
                if nested:
                    nested[-1] = _plus(nested[-1], total)
                else:
                    charged_since_mark[0] = _plus(charged_since_mark[0], total)
        return run

    for cls, name, stage in ((SlotCache, "get", "slot lattices and stacks"),
                             (Inference, "forest", "layout, candidates, kernels")):
        setattr(cls, name, charged(stage, getattr(cls, name)))
    model = load(model_name)
    gc.freeze()  # as the command does, which also turns the cycle collector off for the run
    gc.disable()
    mark("load the model")
    read = charged("read (validating reader)", next)
    sentences = iter(read_file(path))
    stream = iter(lambda: read(sentences, None), None)
    model._check = charged("model-language check", model._check)  # the one count of _watched
    with open(os.devnull, "w", encoding="utf-8") as f:
        write = charged("write", lambda sent: f.write(sent.text()))
        for sent in annotate(model.punct, model._watched(stream), mark=mark):  # as Model.decode
            write(sent)
    return spent


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from bench.options import file_and_model, treebank_file
    parser = file_and_model(__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.file = treebank_file(args.file)
    if args.child:
        spent = stages(args.file, args.model)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps({"stages": spent, "peak": peak}))
        return
    from bench.model_bench import compile_fstpunct
    compile_fstpunct()  # else "imports" would count compiling fstpunct (PYTHONDONTWRITEBYTECODE)
    children = [json.loads(subprocess.run(
        [sys.executable, __file__, "--child", "--model", args.model, args.file], check=True,
        capture_output=True, text=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    ).stdout) for _ in range(args.repeat)]
    peak = max(child["peak"] for child in children)
    runs = [child["stages"] for child in children]
    least = {k: min(run[k][0] for run in runs) for k in runs[0]}
    faults = {k: statistics.median(run[k][1] for run in runs) for k in runs[0]}
    total = sum(least.values())
    print(f"load average {os.getloadavg()[0]:.1f}; per stage: CPU seconds (minimum of "
          f"{args.repeat} processes) and minor page faults (median)")
    for name, seconds in sorted(least.items(), key=lambda kv: -kv[1]):
        print(f"  {name:30s} {seconds:6.3f} s  {100 * seconds / total:5.1f} %  "
              f"{faults[name]:8,.0f} faults")
    print(f"  {'sum':30s} {total:6.3f} s          {sum(faults.values()):8,.0f} faults; "
          f"peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
