"""Parsing CoNLL-U sentences: every line kept, only HEAD and DEPREL of the words rewritten."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..files import open_input
from ..ud.annotations import forget
from ..ud.treebank import Sentence, read_conllu, with_arcs
from .model import Input, Model
from .punct import Prepared, prepare, reattach
from .search import greedy, search, search_beam, tree

__all__ = ["kbest", "parse_input", "parse", "read_unparsed"]


def read_unparsed(path: str | Path | None) -> Iterator[Sentence]:
    """Stream sentences to parse from a file (``None`` or ``-``: stdin); HEAD may be ``_``."""
    lines, name = open_input(path)
    yield from read_conllu(lines, name, tree=False)


def parse_input(model: Model, inp: Input, beam: int | None = None,
                weights: np.ndarray | None = None) -> tuple[list[int], list[str]]:
    """Heads and relations over the prepared tokens of ``inp`` (``beam``: see
    :meth:`Model.beam_width`; below 1 an :class:`~fstpunct.errors.InputError`)."""
    return _arcs(model, inp.prep, beam, weights, inp)


def _arcs(model: Model, prep: Prepared, beam: int | None, weights: np.ndarray | None,
          inp: Input | None = None, reference: bool = False) -> tuple[list[int], list[str]]:
    """:func:`parse_input`; at beam 1 with float32 weights of more than one transition (numpy
    sums a single column in another order) the compiled greedy parser
    (:func:`~fstpunct.parser.search.greedy`: the same arcs) unless ``reference``."""
    k = model.beam_width(beam)
    if k == 1 and not reference and len(model.transitions) > 1 and (
            weights is None or weights.dtype == np.float32):
        return greedy(model, prep, weights)  # the model's own weights: float32
    return tree(model, search(model, inp or model.input(prep), k,
                              model.weights if weights is None else weights))


def parse(model: Model, sent: Sentence, beam: int | None = None,
          weights: np.ndarray | None = None, *, reference: bool = False) -> Sentence:
    """A copy of ``sent`` with every word's HEAD and DEPREL from the parser (``beam``: by
    default the model's own; ``reference``: the readable beam search at beam 1 too, which the
    compiled greedy parser is checked against)."""
    prep = prepare(sent, model.mode, gold=False, version=model.props_version)
    heads, rels = _arcs(model, prep, beam, weights, reference=reference)
    return _with_arcs(sent, reattach(sent, prep, heads, rels))


def kbest(model: Model, sent: Sentence, beam: int | None = None
          ) -> list[tuple[float, Sentence]]:
    """The trees of the final beam, best first, each with its score: copies of ``sent`` as
    :func:`parse` writes them (``beam``: by default the model's own)."""
    prep = prepare(sent, model.mode, gold=False, version=model.props_version)
    return [(item.score, _with_arcs(sent, reattach(sent, prep, *tree(model, item))))
            for item in search_beam(model, model.input(prep), model.beam_width(beam),
                                     model.weights)]


def _with_arcs(sent: Sentence, arcs: dict[int, tuple[int, str]]) -> Sentence:
    """:func:`~fstpunct.ud.treebank.with_arcs` without decode's analysis (of the old tree);
    ``arcs`` must give every word one (a ValueError if not: no word keeps its old arc)."""
    if len(arcs) != len(sent.words):
        raise ValueError(f"{sent.place}: {len(arcs)} arcs for {len(sent.words)} words")
    return forget(with_arcs(sent, arcs))
