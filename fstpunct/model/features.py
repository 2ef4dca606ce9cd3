"""Feature templates of the Attach model (DESIGN §3): context features × pair features.

Every feature of f(l, r, w) is a conjunction of one *context feature* of node w with one *pair
feature* of (l, r), so θ is a matrix Θ[context, pair feature] and the score of every candidate
pair of every node is a row of X Θ Gᵀ (X: nodes × contexts, G: pairs × pair features, both binary;
lexical contexts have weights for side features only).

Context features of a node w spanning slots i..k (names as stored in a model):
``bias``; ``d=`` its full relation and ``b=`` the base relation (``nmod:poss`` gives ``d=nmod:poss``
and ``b=nmod``, so unseen subtypes share weights); ``u=`` its UPOS; ``pd=``/``pu=`` the relation
and UPOS of its parent (``<root>`` for the root); ``c=`` each distinct relation among its children;
``ll=``/``lr=`` the UPOS of the words left and right of slot i and ``rl=``/``rr=`` of slot k
(``<s>``/``</s>`` past the sentence ends); ``start``/``end`` when the span starts/ends the
sentence; and any extra contexts the sentence carries for the node (``SlotSentence.contexts``:
the correction model's ``xl=``/``xr=``/``xp=``, the learner's own punctemes). The pseudo node of a
sentence without words has ``bias``, ``d=<empty>``, ``b=<empty>``, ``start``, ``end``.

*Lexical* contexts, in models trained with them (:func:`lexical_contexts`): ``fw=`` the node's
own word, ``llw=``/``lrw=`` the words left and right of slot i and ``rlw=``/``rrw=`` of slot k,
lowercased, for the most frequent words of training only (``Settings.lexical``): the words that
cue punctuation are mostly function words (*however*, *which*; Hindi *जो*, *कि*). They are
conjoined with the side pair features only (``L=``, ``R=``, ``M``; see
:class:`~.attach.AttachModel`): a word makes a mark on one side of its constituent more or
less likely, without a weight for every pair of the table.

Pair features of (l, r): ``P=l|r`` (the pair), ``L=l``, ``R=r``, and ``M`` when l and r contain
symmetric marks that mirror each other (:func:`~.vocab.unmatched` is false). ``L=``/``R=``
exist only for punctemes that occur on that side of some pair of the table.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from ..dp.sparse import Csr
from ..ud.slots import SlotSentence
from ..ud.tree import children
from ..ud.treebank import universal
from ._features import node_rows, word_columns
from .vocab import EMPTY, Puncteme, Vocab

__all__ = ["context_ids", "context_ids_reference", "node_contexts", "lexical_contexts",
           "is_lexical", "is_side", "pair_features", "render"]

_BOS, _EOS, _ROOT = "<s>", "</s>", "<root>"
_LEXICAL = ("fw=", "llw=", "lrw=", "rlw=", "rrw=")
_PSEUDO = ("bias", f"d={EMPTY}", f"b={EMPTY}", "start", "end")  # the pseudo node's contexts


def render(p: Puncteme) -> str:
    """A puncteme as text: tokens joined by spaces, ``ε`` when empty."""
    return " ".join(p) or "ε"


def is_lexical(context: str) -> bool:
    """Whether a context feature names a word (``fw=`` and the words beside the slots): these
    come after all the others in the feature index."""
    return context.startswith(_LEXICAL)


def is_side(pair_feature: str) -> bool:
    """Whether a pair feature is a side feature (``L=``, ``R=``, ``M``: not ``P=``)."""
    return not pair_feature.startswith("P=")


def lexical_contexts(sent: SlotSentence) -> list[list[str]]:
    """The lexical context features of each node (none for the pseudo node)."""
    words = (_BOS, *(w.lower() for w in sent.words), _EOS)
    return [[f"fw={words[w]}", f"llw={words[i]}", f"lrw={words[i + 1]}", f"rlw={words[k]}",
             f"rrw={words[k + 1]}"] for w, (i, k) in enumerate(sent.spans, 1)]


def node_contexts(sent: SlotSentence, lexical: bool = False) -> list[list[str]]:
    """Context feature names of each node (1..n, or the one pseudo node when n = 0), with the
    lexical ones if asked."""
    n = sent.n
    if n == 0:
        return [list(_PSEUDO)]
    upos = (_BOS, *sent.upos, _EOS)
    deprels, heads = sent.deprels, sent.heads
    kids = children(heads)
    out = []
    for w, (i, k) in enumerate(sent.spans, 1):
        d, h = deprels[w - 1], heads[w - 1]
        feats = ["bias", f"d={d}", f"b={universal(d)}", f"u={upos[w]}",
                 f"pd={deprels[h - 1] if h else _ROOT}", f"pu={upos[h] if h else _ROOT}",
                 f"ll={upos[i]}", f"lr={upos[i + 1]}", f"rl={upos[k]}", f"rr={upos[k + 1]}"]
        if kids[w]:
            feats.extend(f"c={c}" for c in sorted({deprels[c - 1] for c in kids[w]}))
        if i == 0:
            feats.append("start")
        if k == n:
            feats.append("end")
        out.append(feats)
    for feats, extra in zip(out, sent.contexts):
        feats.extend(extra)
    if lexical:
        for feats, words in zip(out, lexical_contexts(sent)):
            feats.extend(words)
    return out


class _Codes(NamedTuple):
    """Strings numbered in order of first occurrence (``codes``: the number of each, and
    ``distinct`` the strings), and the id in a context index of each one behind a template
    prefix (-1: unknown), worked out once per distinct string."""

    codes: np.ndarray
    distinct: list[str]

    @classmethod
    def of(cls, values: Sequence[str]) -> _Codes:
        number: dict[str, int] = {}
        codes = np.array([number.setdefault(v, len(number)) for v in values], dtype=np.intp)
        return cls(codes, list(number))

    def table(self, index: Mapping[str, int], prefix: str) -> np.ndarray:
        """The id of ``prefix`` + each distinct string."""
        return np.array([index.get(prefix + v, -1) for v in self.distinct], dtype=np.intp)


def context_ids(sentences: Sequence[SlotSentence], index: Mapping[str, int],
                lexical: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ids in ``index`` of every node's :func:`node_contexts` (unknown ones left out),
    ascending, for the nodes of all ``sentences`` in order: CSR rows (``ptr``, ``ids``), and
    the offsets of each sentence's nodes. The same as mapping the names through ``index``
    (:func:`context_ids_reference`): each template's id is looked up once per distinct string
    of its column, and the rows are assembled compiled (:func:`~._features.node_rows`)."""
    n = np.array([s.n for s in sentences], dtype=np.intp)
    node_offsets = np.concatenate([[0], np.cumsum(np.maximum(n, 1))]).astype(np.intp)
    worded = [s for s in sentences if s.n]
    heads, spans, upos_codes, deprel_codes, form_codes = word_columns(worded, _BOS, _EOS,
                                                                      lexical)
    upos, deprels, forms = _Codes(*upos_codes), _Codes(*deprel_codes), _Codes(*form_codes)
    bases = _Codes.of([universal(d) for d in deprels.distinct])

    def tables(codes: _Codes, prefixes: Sequence[str]) -> np.ndarray:
        return np.array([codes.table(index, p) for p in prefixes],
                        dtype=np.intp).reshape(len(prefixes), len(codes.distinct))

    deprel_ids = np.concatenate([tables(deprels, ("d=", "pd=")),
                                 bases.table(index, "b=")[bases.codes][None],
                                 tables(deprels, ("c=",))])
    first_word = np.concatenate([[0], np.cumsum(n[n > 0])]).tolist()
    extra = [(first + w, index.get(name, -1)) for s, first in zip(worded, first_word)
             if s.contexts for w, names in enumerate(s.contexts[:s.n]) for name in names]
    ptr, ids = node_rows(n, heads, spans, upos.codes, deprels.codes, forms.codes,
                         tables(upos, ("u=", "pu=", "ll=", "lr=", "rl=", "rr=")), deprel_ids,
                         tables(forms, _LEXICAL if lexical else ()),
                         np.array([index.get(c, -1) for c in ("bias", f"pd={_ROOT}",
                                                              f"pu={_ROOT}", "start", "end")],
                                  dtype=np.intp),
                         np.array([index.get(c, -1) for c in _PSEUDO], dtype=np.intp),
                         np.array([w for w, _ in extra], dtype=np.intp),
                         np.array([k for _, k in extra], dtype=np.intp))
    return ptr, ids, node_offsets


def context_ids_reference(sentences: Sequence[SlotSentence], index: Mapping[str, int],
                          lexical: bool = False) -> list[list[int]]:
    """:func:`context_ids`'s rows by mapping :func:`node_contexts` through ``index`` node by
    node (the tests' oracle)."""
    return [sorted(index[c] for c in node if c in index)
            for s in sentences for node in node_contexts(s, lexical)]


def pair_features(vocab: Vocab, symmetric: Sequence[tuple[str, str]]) -> tuple[list[str], Csr]:
    """Names of the pair features and the binary matrix G (pairs × pair features)."""
    strings = [vocab.pair_strings(p) for p in range(len(vocab.pairs))]
    lr = np.asarray(vocab.pairs, dtype=np.int64).reshape(-1, 2)
    lefts, left_col = np.unique(lr[:, 0], return_inverse=True)
    rights, right_col = np.unique(lr[:, 1], return_inverse=True)
    names = [f"P={render(l)}|{render(r)}" for l, r in strings]
    names += [f"L={render(vocab.punctemes[p])}" for p in lefts]
    names += [f"R={render(vocab.punctemes[p])}" for p in rights]
    names.append("M")
    marks = {t for pair in symmetric for t in pair}
    bad = vocab.unmatched_mask(symmetric)
    matched = [k for k, (l, r) in enumerate(strings)
               if not bad[k] and any(t in marks for t in l + r)]
    every = np.arange(len(strings))
    rows = np.concatenate([every, every, every, matched]).astype(np.int64)
    cols = np.concatenate([every, len(strings) + left_col, len(strings) + len(lefts) + right_col,
                           np.full(len(matched), len(names) - 1)]).astype(np.int64)
    return names, Csr.of(len(strings), len(names), rows, cols, np.ones(len(rows)))
