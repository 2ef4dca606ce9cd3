"""``fstpunct models``: the bundled models, and their test perplexity measured and recorded."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..api import ModelInfo, bundled_models, evaluate
from ..errors import InputError, refuse_unused
from ..model.store import bundled
from ..wording import counted
from .arguments import UD_DIR_HELP
from .table import format_table

HELP = ("List the bundled models: language, channel direction, test perplexity, size, training "
        "data. --evaluate measures the test perplexity (on the language's standard test split) "
        "and records it in the model's model.json.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--evaluate", nargs="+", metavar="NAME",
                        help="measure and record these bundled models' test perplexity first")
    parser.add_argument("--ud-dir", metavar="DIR",
                        help=f"with --evaluate: the {UD_DIR_HELP}")
    parser.add_argument("--tsv", action="store_true", help="tab-separated output")


def _data(info: ModelInfo) -> str:
    """``en train: /…/en_ewt-ud-train.conllu`` as ``en train: en_ewt-ud-train.conllu``."""
    files = [f"{label}: {Path(path).name}" if path else label
             for label, _, path in (d.partition(": ") for d in info.data)]
    count = f" ({counted(info.sentences, 'sentence')})" if info.sentences is not None else ""
    return ", ".join(files) + count if files else "-"


def run(args: argparse.Namespace) -> int:
    refuse_unused({"--ud-dir": args.ud_dir is not None and not args.evaluate},
                  "only with --evaluate (the test splits it measures on)")
    unknown = [name for name in args.evaluate or () if name not in bundled()]
    if unknown:
        raise InputError(f"not a bundled model: {', '.join(unknown)} (bundled: "
                         f"{', '.join(bundled())})")
    for name in args.evaluate or ():
        print(f"fstpunct models: measuring {name} on {name} test", file=sys.stderr, flush=True)
        evaluate(name, args.ud_dir)
    rows = [(info.language, info.direction,
             f"{info.perplexity:.4f}" if info.perplexity is not None else "-",
             f"{info.size / 1e6:.1f} MB", _data(info)) for info in bundled_models()]
    print(format_table(("language", "direction", "test perplexity", "size", "training data"),
                       rows, args.tsv))
    return 0
