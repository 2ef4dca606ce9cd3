"""Straight quotes standing alone in text (``he said " hello " to me``): how often each way of
telling them open or closed is right, against a treebank's XPOS (UD English writes ``\u0060\u0060``
for an opening quote, ``''`` for a closing one; issue 22, text in). Two ways: the heads of the
bundled parser's tree (:func:`~fstpunct.ud.slots.quote_symbols`, the quotes' XPOS blanked, as
text gives a quote standing alone; how ``decode --text`` told them until 2026-12-02), and the
count of :meth:`~fstpunct.ud.text.Tokeniser.line_xpos` (an open quote of the kind is closed,
else one opens), both given the treebank's words and UPOS.

    FSTPUNCT_UD_DIR=../shared/ud .venv/bin/python scripts/quote_directions.py [--lang en] \\
        [--splits dev test] [--parser DIR]
"""
from __future__ import annotations

import argparse

from fstpunct.model.store import BUNDLED
from fstpunct.parser.decode import parse
from fstpunct.parser.model import Model
from fstpunct.ud.release import split_source
from fstpunct.ud.slots import OPEN_XPOS, STRAIGHT_QUOTES, quote_symbols
from fstpunct.ud.text import Tokeniser
from fstpunct.ud.treebank import Sentence, read_conllu

TOLD = {"``": True, "''": False}  # gold XPOS: opens


def blanked(sent: Sentence) -> Sentence:
    """``sent`` with its straight quotes' XPOS ``_``."""
    rows = [r.split("\t") for r in sent.text().splitlines()]
    rows = [r[:4] + ["_"] + r[5:] if len(r) == 10 and r[1] in STRAIGHT_QUOTES else r
            for r in rows]
    return next(read_conllu(["\t".join(r) + "\n" for r in rows] + ["\n"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--splits", nargs="+", default=["dev", "test"])
    parser.add_argument("--parser", help="default: the bundled model's parser")
    args = parser.parse_args()
    model = Model.load(args.parser or BUNDLED / args.lang / "parser")
    total = {q: 0 for q in STRAIGHT_QUOTES}
    by_heads, by_count = dict(total), dict(total)
    for split in args.splits:
        for sent in split_source(args.lang, split).sentences():
            gold = {w.id: TOLD[w.xpos] for w in sent.words
                    if w.form in STRAIGHT_QUOTES and w.xpos in TOLD}
            if not gold:
                continue
            heads = quote_symbols([w for w in parse(model, blanked(sent)).words
                                   if w.form in STRAIGHT_QUOTES])
            count = Tokeniser.line_xpos([[(w.form, w.is_punct)] for w in sent.words])
            for w, (xpos,) in zip(sent.words, count):
                if w.id in gold:
                    total[w.form] += 1
                    by_heads[w.form] += (heads[w.id] in "“‘") == gold[w.id]
                    by_count[w.form] += (xpos == OPEN_XPOS) == gold[w.id]
    for q in sorted(STRAIGHT_QUOTES, reverse=True):
        print(f"{args.lang} {' '.join(args.splits)}: {q} {total[q]}, told right by the parse's "
              f"heads {by_heads[q]}, by the count {by_count[q]}")


if __name__ == "__main__":
    main()
