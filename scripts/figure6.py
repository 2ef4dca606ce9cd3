"""Figure 6 analog (paper §6.3): how well a word-trigram LM trained on rephrased train sentences
predicts the original test sentences, per rephrasing method.

For every language: the train split is self-permuted ``--samples`` times per sentence (the same
word orders for every method: one random stream per sentence and sample), written by each method
(base, half, full), and an interpolated Kneser–Ney trigram model (``KneserNeyTrigram``, checked
against nltk.lm) is trained on each. Perplexity of the original test sentences over the
punctuation tokens and over all tokens (the end of sentence included). Punctuation forms are
folded before counting (curly and straight double quotes → ``"``, single → ``'``) so a method
is not judged on quote glyphs. Every model has the vocabulary of the original train split (tokens
seen twice or more; the rest is ``<UNK>``, as nltk's ``unk_cutoff=2``), and a row "original"
gives the model trained on the train split as it is, for reference. Writes a JSON line per
language to ``--out`` (rewritten whole after each language).

    python scripts/figure6.py --langs ar en es hi zh --samples 5 --out results/figure6.jsonl
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from pathlib import Path

from fstpunct.apps.rephrase.order import OrderModel, order_path
from fstpunct.apps.rephrase.rephrase import METHODS, Options, rephrase
from fstpunct.apps.rephrase.trigram import KneserNeyTrigram
from fstpunct.files import output
from fstpunct.model.store import load_model
from fstpunct.ud.release import read_one
from fstpunct.ud.treebank import Sentence

_FOLD = {"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"}


def tokens(sent: Sentence) -> tuple[list[str], list[bool]]:
    """The LM's tokens of a sentence (punctuation forms folded) and which are punctuation."""
    return ([_FOLD.get(w.form, w.form) if w.is_punct else w.form for w in sent.words],
            [w.is_punct for w in sent.words])


def perplexities(lm: KneserNeyTrigram, test: list[Sentence]) -> dict[str, float]:
    punct, every = [], []
    for sent in test:
        toks, is_punct = tokens(sent)
        logs = lm.log_probs(toks)
        every.extend(logs)
        punct.extend(lp for lp, p in zip(logs, is_punct) if p)
    return {"punct": math.exp(-sum(punct) / len(punct)), "all": math.exp(-sum(every) / len(every)),
            "punct_tokens": len(punct), "all_tokens": len(every)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", nargs="+", default=["ar", "en", "es", "hi", "zh"])
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/figure6.jsonl")
    args = parser.parse_args()
    out = Path(args.out)
    rows: list[dict] = []
    for lang in args.langs:
        model, order = load_model(lang), OrderModel.load(order_path(lang))
        train, test = list(read_one(f"{lang}:train")), list(read_one(f"{lang}:test"))
        row: dict = {"lang": lang, "samples": args.samples, "seed": args.seed,
                     "train": len(train), "test": len(test)}
        counts = Counter(t for s in train for t in tokens(s)[0])
        vocabulary = {t for t, c in counts.items() if c >= 2}
        original = KneserNeyTrigram((tokens(s)[0] for s in train), vocabulary=vocabulary)
        row["original"] = perplexities(original, test)
        for method in METHODS:
            start = time.time()
            options = Options(method, args.seed, args.samples)
            lm = KneserNeyTrigram((tokens(s)[0] for s in rephrase(train, model, order, options)),
                                  vocabulary=vocabulary)
            row[method] = perplexities(lm, test)
            print(f"{lang} {method}: punct {row[method]['punct']:.1f} all "
                  f"{row[method]['all']:.1f} ({time.time() - start:.0f} s)", file=sys.stderr)
        rows.append(row)
        with output(out) as f:  # rewritten whole after every language
            f.writelines(json.dumps(r) + "\n" for r in rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
