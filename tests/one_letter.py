"""Random projective trees of one-letter words, the most crowded sentence pictures: drawn by
tests/test_draw_tree.py (hypothesis) and counted by bench/random_trees.py (seeded), from this
one generator; and the view of one tree's rows, which they and the benches' tests draw."""
from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import Any

from toy_release import Row, conllu

from fstpunct.model.punct import PunctModel
from fstpunct.model.store import load_model
from fstpunct.show.sentence import SentenceView, sentence_views
from fstpunct.ud.treebank import read_conllu

# relations of several label widths: slots widened for some, not others
MIXED = ("dep", "x", "obl", "nmod:poss", "case", "compound:prt", "acl:relcl")


def one_letter_tree(pick: Callable[[Sequence[Any]], Any],
                    relations: Sequence[tuple[str, ...]] = (("dep",), MIXED)
                    ) -> tuple[str, list[Row]]:
    """A random projective tree of 2-24 words (each span's head drawn, its sides the same way
    below it), en or ar (right to left), its words one letter, none wide (a lone combining
    mark; the first a letter, so an ar tree reads right to left) or two: the narrowest words,
    the most crowded fans; its relations each drawn from one of ``relations`` (by default
    every relation 'dep', or each drawn from :data:`MIXED`). ``pick(options)`` draws one of
    a sequence (hypothesis' ``sampled_from``, ``random.Random.choice``)."""
    lang = pick(["en", "ar"])
    n = pick(range(2, 25))
    heads = [0] * n

    def attach(lo: int, hi: int, head: int) -> None:  # words lo..hi-1 under head (1-based)
        if lo < hi:
            r = pick(range(lo, hi))
            heads[r] = head
            attach(lo, r, r + 1)
            attach(r + 1, hi, r + 1)

    attach(0, n, 0)
    letters = ["a", "i", "m", "W", "\u0301", "ab"] if lang == "en" else \
        ["ب", "ت", "د", "و", "\u064e", "بت"]
    # the first word a letter: a tree of lone combining marks has no direction (not rtl)
    words = [pick(letters[:4])] + [pick(letters) for _ in range(n - 1)]
    rels = pick(relations)
    return lang, [(w, "X", h, pick(rels) if h else "root") for w, h in zip(words, heads)]


def one_view(rows: list[Row], source: PunctModel | str = "en") -> SentenceView:
    """The view (k = 0) of one sentence of ``rows`` (word, UPOS, head, relation) under
    ``source``: a model, or a bundled model's name (loaded afresh)."""
    model = load_model(source) if isinstance(source, str) else source
    (view,) = sentence_views(model, read_conllu(io.StringIO(conllu(rows))), k=0)
    return view
