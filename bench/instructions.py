"""Instruction counts of decode and restoration against their references (callgrind, whole
process): the load-independent figures, where the timed benchmarks' ratios move with the load.

Each command runs under ``valgrind --tool=callgrind`` (``OPENBLAS_NUM_THREADS=1``, and
``PYTHONHASHSEED=0``: with random string hashes a count moves by about ±0.05 % from run to run,
with a fixed seed it repeats exactly) and its total ``Ir`` (the out file's ``totals:`` line,
else its ``summary:`` line) is printed in G instructions:

* ``fstpunct decode --model M`` on en_ewt test (``--quiet``, output to /dev/null) against the
  process that only parses the file with ``conllu`` (bench/model_bench.py's decode reference),
  and their ratio;
* with ``--restore``, also ``fstpunct restore --model M`` on the first ``--sentences`` sentences
  of en_ewt test (bench/restore_speed.py's input) against the trivial baseline
  (``--trivial en``) on them, and their ratio.

The bytecode of the fstpunct the counted commands import (this tree's, or ``PYTHONPATH``'s) is
compiled first (as installed packages have it). Without valgrind, one
line says so and nothing runs. A callgrind run is 50-100 times slower than the process. To
count another tree's code, run with ``PYTHONPATH=TREE`` (its compiled modules built in place,
its bytecode compiled): the commands counted import fstpunct from there. Between builds of
equivalent code a count moves by up to about 0.3 % (the compiler's code for routines not
edited, the interpreter's caches over another memory layout): a smaller change is not resolved
by one whole-process count.
Usage: python bench/instructions.py [--model M] [--restore [--sentences N]]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.model_bench import FSTPUNCT, PARSE_ONLY, compile_fstpunct
from bench.restore_speed import write_sample
from fstpunct.ud.release import find_treebank

_TOTAL = re.compile(r"^(totals|summary):\s+(\d+)", re.MULTILINE)


def total_instructions(out: str) -> int:
    """The total of a callgrind out file's first event (``Ir`` as callgrind runs by default):
    its ``totals:`` line, else its ``summary:`` line."""
    found = dict((name, int(value)) for name, value in _TOTAL.findall(out))
    for name in ("totals", "summary"):
        if name in found:
            return found[name]
    raise ValueError("callgrind out file: no 'totals:' or 'summary:' line")


def instructions(cmd: list[str], folder: Path) -> int:
    """Instructions of ``cmd``'s whole process (not its children) under callgrind."""
    out = folder / "callgrind.out"
    run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0"})
    if run.returncode:
        last = [line for line in run.stderr.splitlines() if not line.startswith("==")][-1:]
        sys.exit(f"instructions: {' '.join(cmd[:4])} ... failed (exit {run.returncode}): "
                 f"{last[0] if last else 'no message'}")
    count = total_instructions(out.read_text(encoding="utf-8", errors="replace"))
    out.unlink()
    return count


def pair(name: str, cmd: list[str], reference_name: str, reference: list[str],
         folder: Path) -> str:
    """One line: the instructions of ``cmd`` and ``reference`` and their ratio."""
    a, b = instructions(cmd, folder), instructions(reference, folder)
    return (f"{name}: {a / 1e9:.3f} G instructions; {reference_name}: {b / 1e9:.3f} G; "
            f"ratio {a / b:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="en")
    parser.add_argument("--restore", action="store_true",
                        help="also count restoration against the trivial baseline")
    parser.add_argument("--sentences", type=int, default=500,
                        help="en_ewt test sentences restored (default %(default)s)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("instructions: valgrind not found; skipped (apt-get install valgrind)")
        return
    compile_fstpunct()
    test = str(find_treebank("en_ewt", "test"))
    fstpunct = [sys.executable, FSTPUNCT]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(pair("decode en_ewt test",
                   [*fstpunct, "decode", "--model", args.model, test, "-o", os.devnull,
                    "--quiet"],
                   "the process parsing it with conllu",
                   [sys.executable, "-c", PARSE_ONLY, test], folder), flush=True)
        if args.restore:
            sample = folder / "sample.conllu"
            n = len(write_sample(sample, args.sentences))
            restore = [*fstpunct, "restore", str(sample), "--quiet", "-o", os.devnull]
            print(pair(f"restore {n} en_ewt test sentences", [*restore, "--model", args.model],
                       "the trivial baseline", [*restore, "--trivial", "en"], folder))


if __name__ == "__main__":
    main()
