"""``fstpunct parser train``: train the dependency parser on a standard split or files;
``fstpunct parser compact``: a small copy of a parser or tagger model folder."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import InputError, refuse_unused
from ..files import folder_target, model_target
from ..parser import MODES, Model, train
from ..parser.model import FILES, KIND
from ..parser.punct import PROPS_VERSION
from ..parser.train import LEARNING, PATIENCE, PATIENCE_WITHOUT_DEV
from ..ud.release import read_one, split_source
from .arguments import (
    add_model_output_argument,
    add_trainer_arguments,
    at_least,
    check_trainer_arguments,
    positive,
    stdin_once,
    trainer_log,
)

HELP = "Dependency parser commands (train, compact)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="parser_command", metavar="SUBCOMMAND", required=True)
    p = sub.add_parser("train", help="train an arc-standard parser, keeping the best dev epoch",
                       description="Train an arc-standard parser (averaged perceptron; beam 1 = "
                                   "greedy, else beam search; local learning at beam 1, or "
                                   "early update); prints the dev score after every epoch "
                                   "and keeps the best epoch (with --train and no --dev: the "
                                   "last), written to -o DIR when training ends. Until then DIR "
                                   "keeps its previous model, and each better epoch is saved "
                                   "to DIR.partial, removed at the end; a run cut short "
                                   "(Ctrl-C) leaves its best epoch so far there.")
    p.add_argument("--punct", choices=MODES, default="properties",
                   help="punctuation mode (default: properties)")
    p.add_argument("--beam", type=positive, default=1, metavar="K", help="beam width (default: 1)")
    p.add_argument("--learning", choices=LEARNING,
                   help="local: update on every wrong transition along the gold path (beam 1 "
                        "only, its default); early: decode and update when the gold path leaves "
                        "the beam (always used for beam > 1)")
    p.add_argument("--patience", type=int, metavar="N",
                   help=f"stop after N epochs without a better dev UAS (default {PATIENCE}; "
                        "not with --train without --dev)")
    p.add_argument("--fraction", type=float, default=1.0, metavar="F",
                   help="train on the first F of the training sentences, 0 < F <= 1 "
                        "(default 1)")
    p.add_argument("--props-version", type=int, choices=(1, 2), default=PROPS_VERSION,
                   help="initial punctuation properties: 2 = §3 read strictly (default), "
                        "1 = as models trained before it")
    p.add_argument("--min-count", type=int, default=1, metavar="N",
                   help="keep features seen at least N times in the gold configurations "
                        "(default 1)")
    add_trainer_arguments(p, "parser", epochs=20, epochs_note="; --patience may stop sooner",
                          lowercase="parsing (serves lower-cased text too)", seed=1,
                          without_dev="with --train: none, the last epoch is kept, and "
                                      "nothing is saved until it ends")
    c = sub.add_parser("compact", help="a small copy of a parser or tagger model",
                       description="Write a small copy of a parser (or UPOS tagger) model "
                                   "folder: weights below a magnitude threshold dropped, "
                                   "float16 weights, 32-bit feature fingerprints instead of "
                                   "keys (each on request).")
    c.add_argument("model", metavar="DIR", help="parser or tagger model folder")
    c.add_argument("--threshold", type=float, default=0.0, metavar="T",
                   help="drop weights of magnitude below T and features left without any "
                        "(0: drop only features whose weights are all 0)")
    c.add_argument("--float16", action="store_true",
                   help="store weights in float16 (taggers always are)")
    c.add_argument("--fingerprints", action="store_true",
                   help="store 32-bit fingerprints of the feature keys instead of the keys")
    add_model_output_argument(c)


def run(args: argparse.Namespace) -> int:
    if args.parser_command == "compact":
        return _compact(args)
    stdin_once([*(args.train or ()), args.dev])  # before any check
    check_trainer_arguments(args)
    refuse_unused({"--patience": args.patience is not None and bool(args.train)
                   and not args.dev}, PATIENCE_WITHOUT_DEV)
    lang = args.lang or "en"
    if args.learning == "local" and args.beam > 1:
        raise InputError("--learning local needs --beam 1; beam > 1 always uses early update")
    if not 0 < args.fraction <= 1:
        raise InputError(f"--fraction must be above 0 and at most 1, not {args.fraction}")
    at_least(0, patience=args.patience, min_count=args.min_count)
    model_target(args.output, FILES, KIND)  # a folder it may not write: before reading the data
    sources = ([read_one(f, args.ud_dir) for f in args.train] if args.train  # all named first
               else [split_source(lang, "train", args.ud_dir).sentences()])
    train_sents = [s for source in sources for s in source]
    total = len(train_sents)
    train_sents = train_sents[:max(1, round(args.fraction * total))]
    dev_sents = list(read_one(args.dev, args.ud_dir) if args.dev else () if args.train
                     else split_source(lang, "dev", args.ud_dir).sentences())
    train(train_sents, dev_sents, args.punct, args.beam, args.output, epochs=args.epochs,
          patience=args.patience, seed=args.seed, log=trainer_log(args),
          progress=not args.quiet,
          info={"train": _named(args.train) if args.train else f"{lang} train",
                "dev": args.dev or (None if args.train else f"{lang} dev"),
                "fraction": args.fraction,
                "train_sentences_available": total},
          props_version=args.props_version, learning=args.learning, lowercase=args.lowercase,
          min_count=args.min_count)
    return 0


def _named(files: list[str]) -> str | list[str]:
    """The model's record of its ``--train`` files: one as the string it always was, several
    as a list (as ``fstpunct train`` records its inputs; a joined string would not split back
    when a path holds ", ")."""
    return files[0] if len(files) == 1 else files


def _compact(args: argparse.Namespace) -> int:
    from ..parser.tagger import Tagger

    at_least(0, threshold=args.threshold)  # named, before loading (the library refuses it too)
    folder_target(args.output)  # a file there is refused, not kept with the model beside it

    if (Path(args.model) / "tagger.json").is_file():
        Tagger.load(args.model).compacted(args.threshold).save(args.output, args.fingerprints)
    else:
        Model.load(args.model).compacted(args.threshold).save(args.output, args.float16,
                                                               args.fingerprints)
    return 0
