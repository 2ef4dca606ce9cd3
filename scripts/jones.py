"""Punctuation as a constraint on parsing (Jones 1994; apps.constraint): the k best trees of
a parser that never sees punctuation, re-ranked by parser score + weight · log p(x | T). The
weight is chosen on dev (word UAS), then applied to test.

    python scripts/jones.py --lang en --parser models/parser-en-removed-b1 --beam 16 \
        > results/jones.md
"""
from __future__ import annotations

import argparse
import sys

from tqdm import tqdm

from fstpunct.apps.constraint import Candidates, candidates, choose
from fstpunct.apps.restoration.metrics import sign_flip_p
from fstpunct.cli.table import format_table
from fstpunct.model.store import load_model
from fstpunct.parser import Model as ParserModel
from fstpunct.parser.score import score
from fstpunct.ud.release import split_source
from fstpunct.ud.treebank import Sentence

WEIGHTS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)


def collect(parser: ParserModel, lang: str, split: str, beam: int
            ) -> tuple[list[Sentence], list[Candidates]]:
    gold = list(split_source(lang, split).sentences())
    lists = list(tqdm(candidates(parser, load_model(lang), gold, beam), total=len(gold),
                      desc=f"{lang} {split}", file=sys.stderr))
    return gold, lists


def errors(gold: Sentence, tree: Sentence) -> int:
    """Words (not punctuation) with a wrong head."""
    return sum(g.head != t.head for g, t in zip(gold.words, tree.words) if not g.is_punct)


def chosen(lists: list[Candidates], weight: float) -> list[Sentence]:
    return [trees[choose(s, lp, weight)] for trees, s, lp in lists]


def oracle(gold: list[Sentence], lists: list[Candidates]) -> list[Sentence]:
    """The tree of each k-best list with the fewest word errors."""
    return [min(trees, key=lambda t: errors(g, t)) for g, (trees, _, _) in zip(gold, lists)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", default="en")
    ap.add_argument("--parser", required=True, help="a removed-mode parser folder")
    ap.add_argument("--beam", type=int, default=16, help="k: the trees re-ranked")
    ap.add_argument("--weights", type=float, nargs="+", default=list(WEIGHTS))
    args = ap.parse_args()
    parser = ParserModel.load(args.parser)
    dev_gold, dev = collect(parser, args.lang, "dev", args.beam)
    sweep = [(w, score(dev_gold, chosen(dev, w)).words.uas) for w in args.weights]
    best = max(sweep, key=lambda item: (item[1], -item[0]))[0]
    print(f"## {args.lang}: {args.parser}, k = {args.beam}\n")
    print("Dev word UAS by weight (k-best oracle "
          f"{score(dev_gold, oracle(dev_gold, dev)).words.uas:.2f}):\n")
    print(format_table(["weight", "dev word UAS"], [[f"{w:g}", f"{u:.2f}"] for w, u in sweep],
                       numeric=True))
    test_gold, test = collect(parser, args.lang, "test", args.beam)
    rows = []
    base = chosen(test, 0.0)
    base_errors = [errors(g, t) for g, t in zip(test_gold, base)]
    for name, trees in (("parser alone (weight 0)", base),
                        (f"re-ranked (weight {best:g}, chosen on dev)", chosen(test, best)),
                        ("k-best oracle", oracle(test_gold, test))):
        s = score(test_gold, trees)
        ours = [errors(g, t) for g, t in zip(test_gold, trees)]
        rows.append([name, f"{s.words.uas:.2f}", f"{s.words.las:.2f}",
                     f"{sum(ours) - sum(base_errors):+d}", f"{sign_flip_p(ours, base_errors):.3f}"])
    print("\nTest:\n")
    print(format_table(["trees", "word UAS", "word LAS", "head errors vs parser alone",
                        "p (sign flip)"], rows, numeric=True))


if __name__ == "__main__":
    main()
