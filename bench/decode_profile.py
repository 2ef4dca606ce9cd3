"""Where a decode's time goes (issue 23): CPU seconds (``time.process_time``) per stage of
``fstpunct decode`` of en_ewt test in one process, run as the command runs it (chunks of 500
sentences, one slot cache of sum and max slots holding the punctemes the candidates need).

Stages: imports; loading the model; reading with the validating reader; the model-language
check; then per chunk ``to_slots``, featurising, the Attach probabilities, the slot lattices and
their stacks (built when a slot string first comes, extended when a later chunk needs more
punctemes), the rest of the forest layout and candidates, the kernels' transposed stacks, the
compiled Viterbi and inside passes, the MISC items and bracketed T′; then writing. ``--repeat``
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
    """(Child mode.) CPU seconds per stage of one decode of ``path``."""
    clock = [time.process_time()]
    spent: dict[str, float] = {}

    def mark(name: str) -> None:
        now = time.process_time()
        spent[name] = spent.get(name, 0.0) + now - clock[0]
        clock[0] = now

    import fstpunct.cli.decode  # noqa: F401  (what decode imports; BLAS on one thread)
    from fstpunct.api import load
    from fstpunct.apps.decode import _annotate_chunk
    from fstpunct.model import punct
    from fstpunct.ud.slots import to_slots
    from fstpunct.ud.treebank import batches, read_file
    mark("imports")
    built = [0.0]  # CPU seconds in building and extending slots

    def timed(method):
        def run(*args, **kwargs):
            start = time.process_time()
            out = method(*args, **kwargs)
            built[0] += time.process_time() - start
            return out
        return run

    for name in ("_build", "_extend"):
        setattr(punct.SlotCache, name, timed(getattr(punct.SlotCache, name)))
    model = load(model_name)
    mark("load the model")
    sentences = list(read_file(path))
    mark("read (validating reader)")
    model._check(sentences[:1000])
    mark("model-language check")
    cache = punct.SlotCache(model.punct, paired=True, subset=True)
    out = []
    for batch in batches(sentences, 500):
        prepared = [to_slots(s) for s in batch]
        mark("to_slots")
        data = model.punct.prepare(prepared)
        mark("featurise")
        inference = punct.Inference(model.punct, data, slots=cache)
        mark("Attach probabilities")
        before = built[0]
        inference.forest(True)
        inference.forest(False)
        mark("layout, candidates, kernels")
        slots = built[0] - before
        spent["layout, candidates, kernels"] -= slots
        spent["slot lattices and stacks"] = spent.get("slot lattices and stacks", 0.0) + slots
        best = inference.viterbi_all()
        mark("Viterbi (compiled)")
        log_p = inference.log_probs()
        mark("inside pass (compiled)")
        inference.viterbi_all = lambda best=best: best  # type: ignore[method-assign]
        inference.log_probs = lambda part=None, log_p=log_p: log_p  # type: ignore[method-assign]
        out.extend(_annotate_chunk(model.punct, batch, prepared, inference, 0))
        mark("MISC items, bracketed T'")
    with open(os.devnull, "w", encoding="utf-8") as f:
        f.writelines(s.text() for s in out)
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
