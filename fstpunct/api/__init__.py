"""Stage 8, the Python API. Takes a model name or folder and what users hold (a CoNLL-U
string, a path or split name, ``conllu.TokenList`` sentences); gives back the same kind, decoded,
restored or normalised, or scored; and trains model folders (:func:`train`). ``fstpunct``'s top
level re-exports it; the command line is a thin layer over it.

Adding a method: write the step in ``fstpunct/apps`` (sentences in, sentences
out) and give :class:`Model` a method of a few lines, as ``Model.decode`` does:
``return self._rewrite(data, lambda s: step(self.punct, s, ...))`` (the sentences as the model
reads them, marks of either width: :mod:`fstpunct.ud.width`); list anything new
in :data:`fstpunct.__all__` and document it in the README's "Python API" section.
"""
from ..ud.release import Source
from .analysis import posteriors
from .catalogue import ModelInfo, bundled_models, evaluate
from .choice import Choice, choose, language_of
from .data import Data, rewrite, sentences, split, values
from .model import Model, Perplexity, load
from .parsing import parse
from .training import train

__all__ = ["Choice", "Data", "Model", "ModelInfo", "Perplexity", "Source", "bundled_models",
           "choose", "evaluate", "language_of", "load", "parse", "posteriors", "rewrite",
           "sentences", "split", "train", "values"]
