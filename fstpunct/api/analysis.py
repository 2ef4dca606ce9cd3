"""Reading back what :meth:`fstpunct.Model.decode` writes into a sentence, as numbers."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..apps.decode import read_posteriors_value
from ..errors import InputError
from ..model.vocab import Puncteme
from ..ud.treebank import Sentence
from .data import sentences

if TYPE_CHECKING:
    import conllu

__all__ = ["posteriors"]

Ranked = list[tuple[Puncteme | None, Puncteme | None, float]]


def posteriors(sentence: conllu.TokenList | Sentence) -> dict[int, Ranked]:
    """Each word's most probable (left, right) puncteme pairs with their posteriors, as
    ``decode(..., posteriors=K)`` wrote them in its MISC (``PunctPost``): word ID → a list of
    ``(left, right, p)``, most probable first, a puncteme being a tuple of tokens (``()``: ε;
    None: the backoff), ``p`` to 3 decimals. ``sentence``: one decoded sentence, a
    ``conllu.TokenList`` or an fstpunct sentence; punctuation tokens have none. An
    :class:`~fstpunct.errors.InputError` if no word has them (decoded without posteriors).

    >>> import conllu, fstpunct
    >>> decoded = fstpunct.load("en").decode(open("data/sample.conllu").read(), posteriors=2)
    >>> fstpunct.posteriors(conllu.parse(decoded)[0])[1]  # word 1, "Hail": ε‖. or ε‖ε
    [((), ('.',), 0.543), ((), (), 0.332)]
    """
    read = next(sentences([sentence]))
    ranked = {}
    for line in read.lines:
        if not line.is_word:
            continue
        for item in line.fields[9].split("|"):
            key, _, value = item.partition("=")
            if key == "PunctPost":
                ranked[int(line.fields[0])] = read_posteriors_value(value)
    if not ranked:
        raise InputError(f"{read.path}: no PunctPost in the sentence: decode it with "
                         "posteriors=K (--posteriors K)")
    return ranked
