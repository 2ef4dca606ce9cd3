"""Reading back what :meth:`fstpunct.Model.decode` writes into a sentence, as numbers."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..apps.decode import Ranked, read_posteriors_value
from ..errors import InputError
from ..ud.treebank import Sentence
from .data import one_tokenlist

if TYPE_CHECKING:
    import conllu

__all__ = ["posteriors"]


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
    if isinstance(sentence, Sentence):
        path = sentence.path
        miscs = [(line.fields[0], line.fields[9]) for line in sentence.lines if line.is_word]
    else:  # its MISC as written: a TokenList is not read as a tree (HEAD may be blank)
        if not one_tokenlist(sentence):
            raise TypeError(f"expected a conllu.TokenList or an fstpunct sentence, got "
                            f"{type(sentence).__name__}")
        from conllu.serializer import serialize_field
        path = "<TokenList 1>"
        miscs = [(str(token["id"]), serialize_field(token["misc"])) for token in sentence
                 if isinstance(token["id"], int)]
    ranked: dict[int, Ranked] = {}
    for word, misc in miscs:
        for item in misc.split("|"):
            key, _, value = item.partition("=")
            if key == "PunctPost":
                try:
                    ranked[int(word)] = read_posteriors_value(value)
                except ValueError:
                    raise InputError(f"{path}: word {word}: PunctPost={value!r} is not what "
                                     "decode writes") from None
    if not ranked:
        raise InputError(f"{path}: no PunctPost in the sentence: decode it with "
                         "posteriors=K (--posteriors K)")
    return ranked
