"""Where a decode's time goes (issue 23): CPU seconds (``time.process_time``) per stage of
``fstpunct decode`` of en_ewt test in one process, run as the command runs it (sentences
streamed from the file to the output in chunks of 500, one slot cache of sum and max slots
holding the punctemes the candidates need, the loaded model frozen for the collector and the
collector off).

Stages: imports; loading the model; reading with the validating reader; the model-language
check; then per chunk decode's own stages (``fstpunct.apps.decode.annotate``'s stage hook):
``to_slots``, featurising, the Attach probabilities, the slot lattices and their stacks (built
when a slot string first comes, extended when a later chunk needs more punctemes), the rest of
the forest layout and candidates, the kernels' transposed stacks, the compiled Viterbi and
inside passes (one traversal), the MISC items and bracketed T′; then writing. ``--repeat``
runs in fresh processes; the minimum of each stage is printed (the least disturbed by a busy
machine). Usage: python bench/decode_profile.py [--model M] [--repeat K] [FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def stages(path: str, model_name: str) -> dict[str, float]:
    """(Child mode.) CPU seconds per stage of one decode of ``path``, streamed as the command
    runs it: decode's own stages (:data:`fstpunct.apps.decode.Mark`), with the time spent in
    reading, the model-language check on the first 1,000 sentences, ``SlotCache.get`` (slot
    lattices and stacks, built or extended), the rest of ``Inference.forest`` (layout,
    candidates, kernels) and writing taken out of the stage they happen in."""
    clock = [time.process_time()]
    spent: dict[str, float] = {}
    charged_since_mark = [0.0]  # CPU seconds of charged calls since the last mark
    nested: list[float] = []  # per running charged call: CPU seconds of the charged ones in it

    def mark(name: str) -> None:
        now = time.process_time()
        spent[name] = spent.get(name, 0.0) + now - clock[0] - charged_since_mark[0]
        clock[0], charged_since_mark[0] = now, 0.0

    import gc
    import itertools

    import fstpunct.cli.decode  # noqa: F401  (what decode imports; BLAS on one thread)
    from fstpunct.api import load
    from fstpunct.apps.decode import annotate
    from fstpunct.model.punct import Inference, SlotCache
    from fstpunct.ud.treebank import read_file
    mark("imports")

    def charged(stage: str, function):
        """``function`` with its CPU time charged to ``stage``."""
        def run(*args, **kwargs):
            start = time.process_time()
            nested.append(0.0)
            try:
                return function(*args, **kwargs)
            finally:
                total = time.process_time() - start
                spent[stage] = spent.get(stage, 0.0) + total - nested.pop()
                if nested:
                    nested[-1] += total
                else:
                    charged_since_mark[0] += total
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
    first = list(itertools.islice(stream, 1000))
    charged("model-language check", model.unknown_share)(first)
    with open(os.devnull, "w", encoding="utf-8") as f:
        write = charged("write", lambda sent: f.write(sent.text()))
        for sent in annotate(model.punct, itertools.chain(first, stream), mark=mark):
            write(sent)
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", nargs="?", help="CoNLL-U (default: en_ewt test)")
    parser.add_argument("--model", default="en")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.file is None:
        from fstpunct.ud.release import find_treebank
        args.file = str(find_treebank("en_ewt", "test"))
    if args.child:
        print(json.dumps(stages(args.file, args.model)))
        return
    from bench.model_bench import compile_fstpunct
    compile_fstpunct()  # else "imports" would count compiling fstpunct (PYTHONDONTWRITEBYTECODE)
    runs = [json.loads(subprocess.run(
        [sys.executable, __file__, "--child", "--model", args.model, args.file], check=True,
        capture_output=True, text=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    ).stdout) for _ in range(args.repeat)]
    least = {k: min(run[k] for run in runs) for k in runs[0]}
    total = sum(least.values())
    print(f"load average {os.getloadavg()[0]:.1f}; CPU seconds per stage, minimum of "
          f"{args.repeat} processes")
    for name, seconds in sorted(least.items(), key=lambda kv: -kv[1]):
        print(f"  {name:30s} {seconds:6.3f} s  {100 * seconds / total:5.1f} %")
    print(f"  {'sum':30s} {total:6.3f} s")


if __name__ == "__main__":
    main()
