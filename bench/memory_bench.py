"""Peak memory of the streaming commands on en_ewt train and on it concatenated four times.

Each command runs as its own process (``fstpunct ...``); its peak resident set size comes from
``wait4``. A command streams when the ratio of the two peaks stays at most 1.2 (issue 18):
memory must not grow with the input. ``restore`` runs with ``--samples 20`` (the default 1000
only makes it slower; what it holds per sentence does not depend on the input's length);
``normalise-j2`` and ``restore-j2`` (asked for with ``--commands``, not run by default) run on
two local workers: each worker's slot-lattice cache fills up to its limit (256 slots) over the
first tens of thousands of sentences, so their ratio on these inputs says how full the caches
got, not that memory grows with the input.

    python bench/memory_bench.py [--ud-dir DIR] [--work DIR] [--limit 1.2]

Heavy (tens of minutes on a loaded 2-core machine): run it with ``nice``. Exits 1 when a
ratio is above the limit.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fstpunct.ud.release import split_source

COMMANDS = {
    "decode": ["decode", "--model", "en", "{in}", "-o", "{out}"],
    "normalise": ["normalise", "--model", "en", "{in}", "-o", "{out}"],
    "restore": ["restore", "--model", "en", "--samples", "20", "--quiet", "{in}", "-o", "{out}"],
    "perplexity": ["perplexity", "--model", "en", "{in}"],
    # on 2 local workers (the peak is the largest of the command and its workers)
    "normalise-j2": ["normalise", "--model", "en", "--jobs", "2", "{in}", "-o", "{out}"],
    "restore-j2": ["restore", "--model", "en", "--samples", "20", "--quiet", "--jobs", "2",
                   "{in}", "-o", "{out}"],
    "score": ["score", "--gold", "{in}", "{in}"],
    "stats": ["stats", "{in}"],
}


def peak_rss(argv: list[str]) -> tuple[float, float]:
    """Run ``fstpunct argv``; its peak RSS in MB (its own or a worker's, the largest) and its
    wall time in seconds."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "fstpunct.cli.main", *argv],
                                stdout=subprocess.DEVNULL, stderr=err)
        # wait4 gives the peak of this child and of the workers it waited for
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            raise SystemExit(f"fstpunct {' '.join(argv)} failed: {err.read().decode()[-500:]}")
    return usage.ru_maxrss / 1024, time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ud-dir", help="UD release folder (default: $FSTPUNCT_UD_DIR)")
    ap.add_argument("--work", default="results/tmp", help="folder for the inputs and outputs")
    ap.add_argument("--limit", type=float, default=1.2, help="largest ratio accepted (1.2)")
    ap.add_argument("--commands", nargs="+", choices=sorted(COMMANDS),
                    default=[c for c in COMMANDS if not c.endswith("-j2")])
    args = ap.parse_args()
    train = split_source("en", "train", args.ud_dir).path
    Path(args.work).mkdir(parents=True, exist_ok=True)
    worst = 0.0
    with tempfile.TemporaryDirectory(dir=args.work, prefix="memory-bench-") as tmp:
        four = Path(tmp) / "en_ewt-train-x4.conllu"
        four.write_bytes(train.read_bytes() * 4)
        print(f"inputs: {train} ({train.stat().st_size / 1e6:.1f} MB) and it four times "
              f"({four.stat().st_size / 1e6:.1f} MB)")
        print(f"{'command':<11} {'train MB':>9} {'x4 MB':>9} {'ratio':>6} {'train s':>8} "
              f"{'x4 s':>8}")
        for name in args.commands:
            peaks = []
            for inp in (train, four):
                argv = [a.format(**{"in": inp, "out": Path(tmp) / "out.conllu"})
                        for a in COMMANDS[name]]
                peaks.append(peak_rss(argv))
            ratio = peaks[1][0] / peaks[0][0]
            worst = max(worst, ratio)
            print(f"{name:<11} {peaks[0][0]:>9.0f} {peaks[1][0]:>9.0f} {ratio:>6.2f} "
                  f"{peaks[0][1]:>8.1f} {peaks[1][1]:>8.1f}", flush=True)
    print(f"largest ratio {worst:.2f} (limit {args.limit})")
    return 0 if worst <= args.limit else 1


if __name__ == "__main__":
    sys.exit(main())
