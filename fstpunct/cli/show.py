"""``fstpunct show``: a CoNLL-U file and a model as one self-contained HTML page."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from ..errors import ModelError
from ..fst.grammar import Grammar, load_grammar
from ..model.store import load_edit_counts, load_model, read_record
from ..show.report import write_report
from ..ud.release import read_one
from .arguments import add_corpus_arguments

HELP = ("Write one self-contained HTML page (no network needed) showing every sentence's "
        "underlying punctuation: words in order with their dependency arcs, each "
        "constituent's punctemes at its edges coloured by what the channel did to them "
        "(kept, absorbed, transposed), the surface below; a word's K most probable (l, r) "
        "pairs and a slot's best edit path on hover or click; search and pages; and a tab of "
        "what the channel learned against its grammar.")
BUNDLED_GRAMMARS = Path(__file__).parents[1] / "grammars"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--pairs", type=int, default=5, metavar="K",
                        help="the K most probable (l, r) pairs shown per word (default 5)")
    parser.add_argument("--page-size", type=int, default=200, metavar="N",
                        help="sentences per page (default 200)")
    parser.add_argument("--grammar", help="the rule file to compare the channel with (default: "
                                          "the one the model was trained from)")


def model_grammar(model: str, explicit: str | None) -> Grammar | None:
    """``explicit``, else the grammar the model was trained from: the package's grammar of that
    file name if there is one (the recorded path may be another checkout's), else the recorded
    path; else None."""
    if explicit:
        return load_grammar(explicit)
    recorded = read_record(model).get("record", {}).get("grammar")
    if not recorded:
        return None
    for path in (BUNDLED_GRAMMARS / Path(recorded).name, Path(recorded)):
        if path.is_file():
            return load_grammar(path)
    return None


def run(args: argparse.Namespace) -> int:
    if args.pairs < 0 or args.page_size < 1:
        raise SystemExit("fstpunct show: --pairs must be >= 0 and --page-size >= 1")
    model = load_model(args.model)
    try:
        counts = load_edit_counts(args.model)
    except ModelError:
        counts = None
    sentences = tqdm(read_one(args.input, args.ud_dir), desc="show", unit=" sentences",
                     file=sys.stderr, disable=None)
    name = "stdin" if args.input == "-" else args.input
    n = write_report(model, sentences, args.output, f"fstpunct: {name} · model {args.model}",
                     model_grammar(args.model, args.grammar), counts, args.pairs,
                     args.page_size)
    print(f"fstpunct show: {n} sentences", file=sys.stderr)
    return 0
