"""Stage 8, the Python API. Takes a model name or folder and what users hold (a CoNLL-U
string, a path or split name, ``conllu.TokenList`` sentences); gives back the same kind, decoded,
restored or normalised, or scored; and trains model folders (:func:`train`). ``fstpunct``'s top
level re-exports it; the command line is a thin layer over it.

Adding a method: write the step in ``fstpunct/apps`` (sentences in, sentences
out) and give :class:`Model` a method of a few lines, as ``Model.decode`` does:
``return self._rewrite(data, lambda s: step(self.punct, s, ...))`` (the sentences as the model
reads them, marks of either width: :mod:`fstpunct.ud.width`); list anything new
in :data:`_HOME` with its module (``__all__`` is its names) and in :data:`fstpunct.__all__`,
and document it in the README's "Python API" section.

The names are loaded on first use from the modules of :data:`_HOME` (a command imports only
what it needs: decode never imports training's grammars).
"""
from __future__ import annotations

import importlib
from typing import Any

_HOME = {"Source": "..ud.release", "posteriors": ".analysis", "ModelInfo": ".catalogue",
         "bundled_models": ".catalogue", "evaluate": ".catalogue", "Choice": ".choice",
         "choose": ".choice", "language_of": ".choice", "Data": ".data", "rewrite": ".data",
         "sentences": ".data", "split": ".data", "values": ".data", "Model": ".model",
         "Perplexity": ".model", "load": ".model", "parse": ".parsing", "score": ".scoring",
         "train": ".training",
         "train_tagger": ".training"}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name], __name__), name)
    raise AttributeError(f"module 'fstpunct.api' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
