"""Arc-standard dependency parser with punctuation as properties of words (Ma, Zhang & Zhu 2014).

Labelled arc-standard transitions (:mod:`.transitions`), static oracle (:mod:`.oracle`),
Zhang & Nivre (2011)-style features hashed in numpy (:mod:`.features`), averaged perceptron
trained greedily or with beam search and early update (:mod:`.train`, :mod:`.search`),
punctuation modes (:mod:`.punct`), CoNLL-U in and out (:mod:`.decode`), scores (:mod:`.score`),
and a UPOS tagger for unpunctuated text (:mod:`.tagger`).
"""
from .decode import kbest, parse, read_unparsed
from .model import Model
from .punct import MODES
from .score import score
from .train import train

__all__ = ["Model", "MODES", "kbest", "parse", "read_unparsed", "score", "train"]
