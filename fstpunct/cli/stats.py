"""``fstpunct stats``: punctuation statistics of treebank files or standard splits."""
from __future__ import annotations

import argparse

from ..progress import progress
from ..ud.release import LANGUAGES, resolve
from ..ud.stats import collect
from .arguments import add_quiet_argument, add_ud_dir_argument, stdin_once
from .table import format_table

HELP = ("Print, per file or split: sentences, words, % punctuation, sentences omitted from "
        "training (punctuation with dependents), non-projective sentences, lifted arcs, "
        "punctuation types and distinct slot strings.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("specs", nargs="*", default=["en"], metavar="LANG|CODE|PATH",
                        help=f"a language ({', '.join(LANGUAGES)}: its standard train/dev/"
                             "test splits; en:dev for one), a treebank code (en_ewt, "
                             "en_ewt-dev) or a CoNLL-U path ('-' = stdin); default: en")
    add_ud_dir_argument(parser)
    parser.add_argument("--tsv", action="store_true", help="tab-separated output")
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    stdin_once(args.specs)
    rows = [collect(src.name, progress(src.sentences(), f"stats {src.name}",
                                       quiet=args.quiet)).row()
            for spec in args.specs for src in resolve(spec, args.ud_dir)]
    header = list(rows[0])
    print(format_table(header, [[str(r[h]) for h in header] for r in rows], args.tsv,
                       numeric=True))
    return 0
