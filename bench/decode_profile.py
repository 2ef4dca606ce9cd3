"""Where a decode's time goes (issue 23): CPU seconds (``time.process_time``) per stage of
``fstpunct decode`` of en_ewt test in one process, run as the command runs it (chunks of 500
sentences, one slot cache of sum and max slots holding the punctemes the candidates need).

Stages: imports; loading the model; reading with the validating reader; the model-language
check; then per chunk decode's own stages (``fstpunct.apps.decode.annotate``'s stage hook):
``to_slots``, featurising, the Attach probabilities, the slot lattices and their stacks (built
when a slot string first comes, extended when a later chunk needs more punctemes), the rest of
the forest layout and candidates, the kernels' transposed stacks, the compiled Viterbi and
inside passes, the MISC items and bracketed T′; then writing. ``--repeat``
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
    """(Child mode.) CPU seconds per stage of one decode of ``path``: decode's own stages
    (:data:`fstpunct.apps.decode.Mark`), with the time spent in ``SlotCache.get`` (slot
    lattices and stacks, built or extended) and the rest of ``Inference.forest`` (layout,
    candidates, kernels) taken out of the stage that called them."""
    clock = [time.process_time()]
    spent: dict[str, float] = {}
    timed_since_mark = [0.0]  # CPU seconds of timed methods since the last mark
    nested: list[float] = []  # per running timed method: CPU seconds of the timed ones it called

    def mark(name: str) -> None:
        now = time.process_time()
        spent[name] = spent.get(name, 0.0) + now - clock[0] - timed_since_mark[0]
        clock[0], timed_since_mark[0] = now, 0.0

    import fstpunct.cli.decode  # noqa: F401  (what decode imports; BLAS on one thread)
    from fstpunct.api import load
    from fstpunct.apps.decode import annotate
    from fstpunct.model.punct import Inference, SlotCache
    from fstpunct.ud.treebank import read_file, write_conllu
    mark("imports")

    def timed(cls: type, name: str, stage: str) -> None:
        method = getattr(cls, name)

        def run(*args, **kwargs):
            start = time.process_time()
            nested.append(0.0)
            try:
                return method(*args, **kwargs)
            finally:
                total = time.process_time() - start
                spent[stage] = spent.get(stage, 0.0) + total - nested.pop()
                if nested:
                    nested[-1] += total
                else:
                    timed_since_mark[0] += total
        setattr(cls, name, run)

    timed(SlotCache, "get", "slot lattices and stacks")
    timed(Inference, "forest", "layout, candidates, kernels")
    model = load(model_name)
    mark("load the model")
    sentences = list(read_file(path))
    mark("read (validating reader)")
    model.unknown_share(sentences[:1000])
    mark("model-language check")
    out = list(annotate(model.punct, sentences, mark=mark))
    with open(os.devnull, "w", encoding="utf-8") as f:
        write_conllu(out, f)
    mark("write")
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
