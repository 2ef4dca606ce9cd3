"""``fstpunct perplexity``: per-slot perplexity of held-out punctuation under a model."""
from __future__ import annotations

import argparse
import math

from ..model.punct import Inference
from ..model.store import load_model
from ..ud.release import LANGUAGES, SPLITS, resolve, split_source
from ..ud.slots import to_slots

HELP = ("Per-slot perplexity exp(−Σ log p(x|T) / Σ (n+1)) of the surface punctuation of every "
        "sentence (none skipped) under a model.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="en", help="model folder or bundled name (default en)")
    parser.add_argument("files", nargs="*", metavar="FILE", help="CoNLL-U files ('-' = stdin)")
    parser.add_argument("--lang", choices=LANGUAGES, help="use this language's standard split")
    parser.add_argument("--split", choices=SPLITS, default="test", help="with --lang")
    parser.add_argument("--ud-dir", help="UD release folder")


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    sources = ([split_source(args.lang, args.split, args.ud_dir)] if args.lang
               else [src for f in args.files or ["-"] for src in resolve(f, args.ud_dir)])
    for src in sources:
        sents = [to_slots(s) for s in src.sentences()]
        inference = Inference(model, model.prepare(sents))
        log_p = sum(inference.log_probs().tolist())
        slots = sum(s.n + 1 for s in sents)
        print(f"{src.name}\tsentences {len(sents)}\tslots {slots}\tlog p {log_p:.2f}\t"
              f"perplexity {math.exp(-log_p / slots):.4f}")
    return 0
