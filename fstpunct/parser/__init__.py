"""Stage 5, the dependency parser: arc-standard, punctuation as properties of words (Ma, Zhang &
Zhu 2014), with the UPOS tagger that serves text in.

Labelled arc-standard transitions (:mod:`.transitions`), static oracle (:mod:`.oracle`),
Zhang & Nivre (2011)-style features hashed in numpy (:mod:`.features`), averaged perceptron
trained greedily or with beam search and early update (:mod:`.train`, :mod:`.search`),
punctuation modes (:mod:`.punct`), CoNLL-U in and out (:mod:`.decode`), scores (:mod:`.score`),
weights on disk and how to make them small (:mod:`.storage`), a UPOS tagger for unpunctuated
text (:mod:`.tagger`) and the two together for text (:mod:`.pipeline`).
"""
from .decode import kbest, parse, read_unparsed
from .model import Model
from .punct import MODES
from .score import score
from .train import train

__all__ = ["Model", "MODES", "kbest", "parse", "read_unparsed", "score", "train"]
