"""fstpunct: punctuation as underlying marks on syntactic constituents, rendered by weighted
FSTs."""
__version__ = "0.1.0"
