"""Stage 1, Universal Dependencies: CoNLL-U files and UD release folders in, sentences out.

Takes treebank files (a path, stdin or a standard split), gives :class:`~.treebank.Sentence`
objects that write back byte for byte, their depunctuated projective trees and the surface
punctuation at every slot between words (:mod:`.slots`), and the treebank statistics.
"""
