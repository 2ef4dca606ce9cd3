"""The taggers and compact parsers shipped beside the punctuation models (issue 22)."""
from __future__ import annotations

import pytest

from fstpunct.model.store import BUNDLED
from fstpunct.parser import Model, parse
from fstpunct.parser.tagger import Tagger, retagged
from fstpunct.ud.treebank import read_conllu

LANGS = sorted(p.parent.parent.name for p in BUNDLED.glob("*/parser/model.json"))
BUDGET = 5_000_000  # bytes per language, taggers and parser together


def test_the_papers_languages_ship_them():
    assert {"ar", "en", "es", "hi", "zh"} <= set(LANGS)


@pytest.mark.parametrize("lang", LANGS)
def test_shipped_parts_fit_the_budget_and_work(lang):
    folder = BUNDLED / lang
    parts = [folder / "tagger", folder / "tagger-lc", folder / "parser"]
    assert sum(f.stat().st_size for p in parts for f in p.iterdir()) <= BUDGET
    tagger, lc = Tagger.load(parts[0]), Tagger.load(parts[1])
    parser = Model.load(parts[2])
    assert not tagger.lowercase and lc.lowercase
    assert parser.mode == "removed" and parser.lowercase and parser.fingerprints
    words = parser.words.items[:6]  # words the parser knows, whatever the language
    text = "".join(f"{k}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_\n" for k, w in enumerate(words, 1))
    sent = next(read_conllu(text.splitlines(keepends=True) + ["\n"], tree=False))
    tags = tagger.tag(words)
    assert all(t in tagger.tags for t in tags) and len(lc.tag(words)) == len(words)
    tree = parse(parser, retagged(sent, tags), 1)
    heads = [w.head for w in tree.words]
    assert heads.count(0) == 1 and all(0 <= h <= len(words) for h in heads)
