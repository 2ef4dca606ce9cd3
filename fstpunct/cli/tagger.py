"""``fstpunct tagger train``: the UPOS tagger of plain text (``--text``), on a standard split or
files; a thin layer over :func:`fstpunct.train_tagger`."""
from __future__ import annotations

import argparse

from ..api.training import train_tagger
from .arguments import (
    add_trainer_arguments,
    at_least,
    check_trainer_arguments,
    stdin_once,
    trainer_log,
)

DESCRIPTION = ("Train a UPOS tagger (greedy averaged perceptron) on the words of CoNLL-U "
               "sentences without their punctuation, as text to restore is tagged; prints the "
               "dev accuracy after every epoch and keeps the best epoch. Put the folder in your "
               "model folder as tagger/ (--lowercase: tagger-lc/), beside a parser (fstpunct "
               "parser train --punct removed) as parser/, for restore --text and decode --text.")
HELP = "UPOS tagger commands (train): the tagger that plain text (--text) goes through."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="tagger_command", metavar="SUBCOMMAND", required=True)
    p = commands.add_parser("train", help="train a UPOS tagger, keeping the best dev epoch",
                            description=DESCRIPTION)
    p.add_argument("--min-count", type=int, default=2, metavar="N",
                   help="keep features seen at least N times in training (default 2, as the "
                        "bundled taggers)")
    add_trainer_arguments(p, "tagger", epochs=6, epochs_note=", as the bundled taggers",
                          lowercase="tagging (a model folder's tagger-lc/, for lower-cased "
                                    "text)", seed=0,
                          without_dev="with --train: none, the last epoch is kept")


def run(args: argparse.Namespace) -> int:
    stdin_once([*(args.train or ()), args.dev])  # before any check
    check_trainer_arguments(args)
    at_least(0, min_count=args.min_count)
    train_tagger(args.output, args.train or (), lang=args.lang or (None if args.train else "en"),
                 dev=args.dev or (), lowercase=args.lowercase, epochs=args.epochs,
                 min_count=args.min_count, seed=args.seed, ud_dir=args.ud_dir,
                 log=trainer_log(args), progress=not args.quiet)
    return 0
