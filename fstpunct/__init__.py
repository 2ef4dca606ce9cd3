"""fstpunct: punctuation as underlying marks on syntactic constituents, rendered by weighted
FSTs.

>>> import fstpunct
>>> model = fstpunct.load("en")     # a bundled model by name, or a folder

then ``model.decode``, ``restore``, ``normalise``, ``rephrase``, ``correct`` (a correction
model), ``parse`` (a parser's k best trees re-ranked by the model), ``log_prob``,
``perplexity``, ``show``, ``draw_tree`` and ``draw_lattice`` on a CoNLL-U string, a path or
split name, or ``conllu.TokenList``s (``decode`` and ``restore`` also read plain text, with
``text=True``; ``restore_lines`` answers a stream of lines, each before the next is read);
``fstpunct.parse(data, parser)`` parses with a parser alone;
``fstpunct.posteriors(sentence)`` reads a decoded sentence's ``PunctPost`` as numbers;
``fstpunct.score(gold, pred)`` scores restored punctuation (of plain text too, ``text=True``);
``fstpunct.split(name, ud_dir)`` is a standard split of the UD release of your choice (a
:class:`Source`); ``fstpunct.train(folder, files)`` trains a model folder,
``fstpunct.train_tagger(folder, files)`` the UPOS tagger of plain text (see the README's
"Python API"). Warnings are :class:`FstpunctWarning`s. The names below are loaded on first use,
so ``import fstpunct`` stays quick.
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

__all__ = ["FstpunctWarning", "Model", "ModelInfo", "Perplexity", "Source", "bundled_models",
           "language_of", "load", "parse", "posteriors", "score", "split", "train",
           "train_tagger"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        module = "fstpunct.errors" if name == "FstpunctWarning" else "fstpunct.api"
        return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'fstpunct' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
