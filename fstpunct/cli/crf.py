"""``fstpunct crf train`` / ``fstpunct crf perplexity``: the CRF slot tagger baseline."""
from __future__ import annotations

import argparse

from ..apps.restoration.crf import FILES, KIND, MIN_COUNT, CrfModel, check_c2_grid, train
from ..errors import InputError
from ..files import model_target
from ..ud.release import read_one, split_source
from ..ud.slots import to_slots
from ..ud.width import Widths
from .arguments import (
    add_held_out_arguments,
    add_model_output_argument,
    add_ud_dir_argument,
    at_least,
    held_out_sources,
    positive,
    stdin_once,
)

HELP = "Linear-chain CRF tagger over slots, a restoration baseline (train, perplexity)."


def _c2_grid(text: str) -> list[float]:
    try:
        grid = [float(v) for v in text.split(",")]
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of numbers: {text!r}") from e
    try:
        check_c2_grid(grid)
    except InputError as e:
        raise argparse.ArgumentTypeError(str(e)) from e
    return grid


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="crf_command", metavar="SUBCOMMAND", required=True)
    p = sub.add_parser("train", help="train on a language's train split, c2 chosen on dev",
                       description="Train a CRF over slots (features: neighbouring words, UPOS "
                                   "and, unless --no-tree, relations and head links); pick "
                                   "the L2 coefficient c2 by dev per-slot perplexity.")
    p.add_argument("--lang", required=True,
                   help="the data's language: its standard train and dev splits (unless "
                        "--train and --dev: then any code, e.g. another UD language's), "
                        "recorded in the model: restore --crf --text tags and parses with "
                        "its bundled tagger and parser (a language without them: restore "
                        "needs --lang of one that has them, or --tagger and --parser)")
    p.add_argument("--train", metavar="FILE",
                   help="training .conllu, '-' or split ('en:train') instead of --lang's train")
    p.add_argument("--dev", metavar="FILE",
                   help="dev .conllu, '-' or split instead of --lang's dev")
    p.add_argument("--c2", type=_c2_grid, default=[0.1, 1.0, 10.0], metavar="C,C,...",
                   help="L2 coefficients to try (default: 0.1,1,10)")
    p.add_argument("--c1", type=float, default=0.0, metavar="C",
                   help="L1 coefficient (default 0; above 0 most weights become 0 and are not "
                        "stored: a compact model)")
    p.add_argument("--min-freq", type=float, default=0.0, metavar="N",
                   help="leave out (attribute, tag) features seen fewer than N times in "
                        "training (default 0: none)")
    p.add_argument("--min-tag-count", type=positive, default=MIN_COUNT, metavar="N",
                   help=f"slot strings seen fewer than N times in training become one "
                        f"'other' tag that restores nothing (default {MIN_COUNT}; fewer tags "
                        f"train faster)")
    p.add_argument("--max-iterations", type=int, default=200, metavar="N",
                   help="L-BFGS iterations (default 200)")
    p.add_argument("--no-tree", action="store_true",
                   help="no tree features (relations, head links): words and UPOS only")
    add_ud_dir_argument(p)
    add_model_output_argument(p)
    p = sub.add_parser("perplexity", help="per-slot perplexity of held-out punctuation",
                       description="Per-slot perplexity exp(−Σ log p(x|words) / Σ (n+1)) of "
                                   "every sentence (none skipped) under a CRF model.")
    p.add_argument("--model", required=True, metavar="DIR",
                   help="CRF model folder (fstpunct crf train)")
    add_held_out_arguments(p, "use this language's standard split")


def run(args: argparse.Namespace) -> int:
    return _train(args) if args.crf_command == "train" else _perplexity(args)


def _train(args: argparse.Namespace) -> int:
    stdin_once([args.train, args.dev])  # before any other check
    at_least(1, max_iterations=args.max_iterations)  # checked before reading anything
    at_least(0, c1=args.c1, min_freq=args.min_freq)
    model_target(args.output, FILES, KIND)  # a folder it may not write: before reading the data
    train_src = read_one(args.train, args.ud_dir) if args.train else split_source(
        args.lang, "train", args.ud_dir).sentences()
    dev_src = read_one(args.dev, args.ud_dir) if args.dev else split_source(
        args.lang, "dev", args.ud_dir).sentences()
    train([to_slots(s) for s in train_src], [to_slots(s) for s in dev_src], args.output,
          args.lang, args.c2, args.max_iterations, tree=not args.no_tree,
          info={"train": args.train or f"{args.lang} train", "dev": args.dev or f"{args.lang} dev"},
          c1=args.c1, min_freq=args.min_freq, min_tag_count=args.min_tag_count)
    return 0


def _perplexity(args: argparse.Namespace) -> int:
    sources = held_out_sources(args)
    model = CrfModel.load(args.model)
    widths = Widths(model.tokens)  # a mark it does not know read as its width twin
    for src in sources:  # (fstpunct.ud.width)
        sents = [to_slots(s) for s in widths.read(src.sentences())]
        log_p, slots, ppl = model.perplexity(sents)
        print(f"{src.name}\tsentences {len(sents)}\tslots {slots}\tlog p {log_p:.2f}\t"
              f"perplexity {ppl:.4f}")
    return 0
