"""Stage 2, dynamic programs over trees: matrices per slot in, sums, best paths and samples out.

Semirings, stacks of sparse or dense matrices, and the tree recursion of the paper's Algorithm 1
written once against a semiring (:mod:`.treedp`, the readable reference and test oracle) with
its compiled twin over many sentences per call (:mod:`.forest`, ``_forest.pyx``: inside, outside,
Viterbi and sampling; CSR kernels in ``_sparse.pyx``).
"""
