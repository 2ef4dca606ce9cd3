"""Benchmark of punctuation restoration (issue 5): restored sentences per second on en_ewt test.

Runs ``fstpunct restore`` (the bundled model, 1000 samples per sentence, gold trees) in a child
process on the first N sentences of en_ewt test and prints sentences per second and peak memory.
The issue sets no target; the reference printed beside it is the trivial baseline's rate
(which only strips and re-inserts), i.e. the cost of everything that is not the model.
Usage: python bench/restore_speed.py [--sentences N] [--samples M] [--model M]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.model_bench import FSTPUNCT, child
from fstpunct.ud.release import find_treebank
from fstpunct.ud.treebank import read_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=500)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--model", default="en")
    args = parser.parse_args()
    sents = list(read_file(find_treebank("en_ewt", "test")))[:args.sentences]
    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "sample.conllu"
        sample.write_text("".join(s.text() for s in sents), encoding="utf-8")
        base = [FSTPUNCT, "restore", str(sample), "--quiet", "-o", str(Path(tmp) / "out.conllu")]
        trivial, _, _ = child(base + ["--trivial", "en"])
        seconds, cpu, peak = child(base + ["--model", args.model, "--samples",
                                           str(args.samples)])
    n = len(sents)
    print(f"restore: {n} en_ewt test sentences, {args.samples} samples each: {seconds:.1f} s = "
          f"{n / seconds:.1f} sentences/s ({n / cpu:.1f} per CPU-second), peak {peak:.0f} MiB; "
          f"trivial baseline "
          f"{n / trivial:.1f} sentences/s (model/trivial time {seconds / trivial:.1f}x)")


if __name__ == "__main__":
    main()
