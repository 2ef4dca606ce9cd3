"""``fstpunct perplexity``: per-slot perplexity of held-out punctuation under a model."""
from __future__ import annotations

import argparse

from ..progress import progress
from .arguments import add_held_out_arguments, add_quiet_argument, held_out_sources
from .model_option import add_model_arguments, chosen_model
from .pool_option import add_pool_arguments, check_pool_options, chosen_pool

HELP = ("Per-slot perplexity exp(−Σ log p(x|T) / Σ (n+1)) of the surface punctuation of every "
        "sentence (none skipped) under a model.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_arguments(parser, lang=False)
    add_held_out_arguments(parser, "use this language's standard split (and, without --model, "
                                   "its bundled model)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="score chunks of 500 sentences in this many local processes "
                             "(default 1)")
    add_pool_arguments(parser)
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    check_pool_options(args)
    sources = held_out_sources(args)
    with chosen_pool(args) as pool:
        for src in sources:  # without --model, each file gets its language's model
            model, sentences = chosen_model(args, str(src.path), src.sentences(), own_lang=True)
            result = model.perplexity(progress(sentences, f"perplexity {src.name}",
                                                  quiet=args.quiet), pool=pool)
            print(f"{src.name}\tsentences {result.sentences}\tslots {result.slots}\t"
                  f"log p {result.log_prob:.2f}\tperplexity {result.value:.4f}")
    return 0
