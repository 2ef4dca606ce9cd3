"""``fstpunct score``: restored punctuation against gold, by aligned words."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..api.scoring import score
from ..apps.restoration.metrics import scores
from ..errors import refuse_unused
from ..files import to_json
from ..ud.release import read_one
from .arguments import add_ud_dir_argument, stdin_once
from .table import format_table

HELP = ("Score restored punctuation against gold: average edit distance per sentence (token "
        "edits summed over slots) and precision/recall/F1 of commas, periods, quotes, brackets "
        "and all marks; with --source (the uncorrected input of a corrector), also the "
        "precision, recall and F0.5 of punctuation edits, one per slot (the CoNLL-2014 M2 "
        "definition). The files must have the same words once punctuation is removed. Marks "
        "are compared exactly: a mark against its twin of the other width (， against ,) is an "
        "error; the second line says how many of the edits differ in width only, and the edit "
        "distance with either width read as one (JSON: width_only_edits, "
        "width_blind_edit_distance, average_width_blind_edit_distance). With --text, GOLD and "
        "PRED are plain text, one sentence a line (references and restore --text --format "
        "text's output), no trees needed.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pred", nargs="?", default="-", metavar="PRED.conllu",
                        help="restored sentences (default: stdin)")
    parser.add_argument("--gold", required=True, metavar="GOLD.conllu",
                        help="gold sentences: a file or a standard split ('es:dev'); with "
                             "--text: a text file or - (stdin)")
    parser.add_argument("--source", metavar="SOURCE.conllu",
                        help="the uncorrected input (correction): score the punctuation edits "
                             "that PRED and GOLD make to it")
    parser.add_argument("--text", action="store_true",
                        help="GOLD and PRED are plain text, one sentence a line (not with "
                             "--source)")
    parser.add_argument("--lang", metavar="L",
                        help="with --text: split marks off the words as L's model does (a "
                             "bundled name or a model folder; '...' one mark; default: at "
                             "every punctuation character)")
    add_ud_dir_argument(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object instead of a table")


def run(args: argparse.Namespace) -> int:
    stdin_once([args.gold, args.pred, args.source], ("--gold", "PRED", "--source"))
    refuse_unused({"--lang": args.lang is not None and not args.text},
                  "only with --text, whose marks it splits off the words")
    refuse_unused({"--source": args.text and args.source is not None,
                   "--ud-dir": args.text and args.ud_dir is not None}, "not with --text")
    if args.text:  # files (stdin: -), as the API reads a path of text
        result, edits = score(Path(args.gold), Path(args.pred), text=True,
                              lang=args.lang), None
    else:
        result, edits = scores(read_one(args.gold, args.ud_dir),
                               read_one(args.pred, args.ud_dir),
                               read_one(args.source, args.ud_dir) if args.source else None)
    if args.json:
        print(to_json(result.to_dict() | ({"edits": edits.to_dict()} if args.source else {})))
        return 0
    print(f"sentences {result.sentences}  slots {result.slots}  edit distance {result.edits}  "
          f"per sentence {result.average_edit_distance:.4f}")
    print(f"of which {result.width_only} differ in width only (， against ,): either width read "
          f"as one, edit distance {result.width_blind_edits}  per sentence "
          f"{result.average_width_blind_edit_distance:.4f}")
    rows = [[name, str(c.gold), str(c.predicted), str(c.matched), f"{c.precision:.2f}",
             f"{c.recall:.2f}", f"{c.f1:.2f}"] for name, c in result.marks.items()]
    print(format_table(["mark", "gold", "predicted", "matched", "precision", "recall", "F1"],
                       rows, numeric=True))
    if args.source:
        p, r, f = edits.scores()
        print(f"punctuation edits: gold {sum(edits.gold)}  proposed {sum(edits.proposed)}  "
              f"correct {sum(edits.correct)}  precision {p:.2f}  recall {r:.2f}  F0.5 {f:.2f}")
    return 0
