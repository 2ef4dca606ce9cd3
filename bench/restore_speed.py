"""Benchmark of punctuation restoration (issues 5, 23): restored sentences per second on en_ewt
test, against the trivial baseline through the same code path.

Runs ``fstpunct restore`` (the bundled model, gold trees) in child processes on the first N
sentences of en_ewt test: the default (exact) decoder, the trivial baseline (which only strips
and re-inserts: the cost of everything that is not the model) and the 1,000-sample sentence MBR
of the paper, in turn, ``--repeat`` times; prints each one's median wall and CPU time, the
median of the run-by-run ratios to the trivial baseline (issue 23's goal: default ≤ 2×), and
the edit distance of the default and the sampled decoder on those sentences (goal: default ≤
sampled).
Usage: python bench/restore_speed.py [--sentences N] [--samples M] [--model M] [--repeat R]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.model_bench import FSTPUNCT, child
from fstpunct.apps.restoration.metrics import score
from fstpunct.ud.release import find_treebank
from fstpunct.ud.treebank import Sentence, read_file


def write_sample(path: Path, sentences: int) -> list[Sentence]:
    """The benchmark's input, the first ``sentences`` sentences of en_ewt test, written to
    ``path``; returns them."""
    sents = list(read_file(find_treebank("en_ewt", "test")))[:sentences]
    path.write_text("".join(s.text() for s in sents), encoding="utf-8")
    return sents


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=500)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--model", default="en")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "sample.conllu"
        sents = write_sample(sample, args.sentences)
        n = len(sents)
        base = [FSTPUNCT, "restore", str(sample), "--quiet"]
        commands = {"trivial": ["--trivial", "en"], "default": ["--model", args.model],
                    "sampled": ["--model", args.model, "--samples", str(args.samples)]}
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        peak = 0.0
        for _ in range(args.repeat):
            for name, options in commands.items():
                out = Path(tmp) / f"{name}.conllu"
                seconds, cpu, peak = child([*base, *options, "-o", str(out)])
                times[name].append((seconds, cpu))
        edits = {name: score(sents, read_file(Path(tmp) / f"{name}.conllu")).edits
                 for name in ("default", "sampled")}
    for name in commands:
        wall = statistics.median(s for s, _ in times[name])
        cpu = statistics.median(c for _, c in times[name])
        line = (f"restore {name}: {n} en_ewt test sentences, median of {args.repeat}: "
                f"{wall:.2f} s = {n / wall:.1f} sentences/s, {cpu:.2f} CPU s")
        if name != "trivial":
            ratio = statistics.median(a[0] / b[0] for a, b in zip(times[name], times["trivial"]))
            ratio_cpu = statistics.median(a[1] / b[1] for a, b in zip(times[name],
                                                                      times["trivial"]))
            line += (f"; /trivial {ratio:.2f}x wall, {ratio_cpu:.2f}x CPU (medians of the "
                     f"run-by-run ratios); {edits[name]} edits = AED {edits[name] / n:.4f}")
        print(line)
    label = f"{args.samples}-sample sentence MBR"
    print(f"goal (issue 23): default/trivial time <= 2x, default edits <= {label}'s: "
          f"{edits['default']} against {edits['sampled']}; largest peak memory {peak:.0f} MiB")


if __name__ == "__main__":
    main()
