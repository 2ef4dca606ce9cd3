"""Stage 3, finite-state machines (OpenFst through pynini): rule files in, slot lattices out.

Rule files (``grammars/*.rules``) expand into the weighted sliding-window channel (:mod:`.channel`,
saved as OpenFst files); composing it with a surface slot string gives that slot's lattice of
underlying strings, turned into the matrix stacks the tree dynamic programs read (:mod:`.lattice`).
"""
