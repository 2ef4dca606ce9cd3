"""Sparse feature weights on disk, shared by the parser and the tagger, and how to make them small.

A model's weights are feature keys (64-bit, sorted) and a dense ``(F + 1, A)`` float32 matrix
whose row k + 1 belongs to ``keys[k]`` (row 0, all zeros, for unknown features). On disk
(:func:`write_weights`) only the nonzero weights are kept, in float32 or float16. Three ways to
make a model small, each an option (their cost in accuracy: RESULTS.md):

- pruning (:func:`pruned`): weights below a magnitude threshold become 0 and features left
  without weights are dropped (so are the many features whose averaged weights are all 0);
- float16 weights;
- 32-bit *fingerprints* instead of keys: only the high 32 bits of each key are stored (sorted,
  as differences, which compress to about two bytes), with column numbers in one byte when
  they fit and row lengths instead of row offsets. A model read back looks features up by the
  fingerprints of their keys (:func:`lookup_keys`): a feature the model does not know finds a
  row by mistake with probability (stored features) / 2³², and stored features of equal
  fingerprints have their weights summed.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
from scipy import sparse

from ..errors import refuse_below
from ..files import read_meta, read_npz

__all__ = ["FINGERPRINT_SHIFT", "lookup_keys", "pruned", "write_weights", "read_folder"]

FINGERPRINT_SHIFT = 32


def lookup_keys(keys: np.ndarray, fingerprints: bool) -> np.ndarray:
    """What a model stores of feature ``keys``: the keys, or their fingerprints."""
    return keys >> np.uint64(FINGERPRINT_SHIFT) if fingerprints else keys


def pruned(keys: np.ndarray, weights: np.ndarray, threshold: float
           ) -> tuple[np.ndarray, np.ndarray]:
    """Keys and weights with every weight of magnitude below ``threshold`` set to 0 and the
    features left with no nonzero weight dropped (row 0 stays); a ``threshold`` below 0,
    infinite or not a number is an :class:`~fstpunct.errors.InputError`."""
    refuse_below(0, threshold=threshold)  # NaN too: it would drop every weight
    w = np.where(np.abs(weights) >= threshold, weights, 0).astype(np.float32)
    keep = np.flatnonzero(np.any(w[1:] != 0, axis=1))
    return keys[keep], np.concatenate([np.zeros((1, w.shape[1]), np.float32), w[keep + 1]])


def write_weights(path: Path, keys: np.ndarray, weights: np.ndarray,
                  dtype: type = np.float32, fingerprints: bool = False) -> None:
    """Feature keys and a (mostly zero) weight matrix, stored sparse with values in ``dtype``
    (``np.float16`` halves the size); with ``fingerprints`` the keys' fingerprints instead of
    the keys (see the module's notes)."""
    w = sparse.csr_matrix(weights.astype(dtype).astype(np.float32))
    small = w.shape[1] < 2 ** 15  # column numbers fit in int16
    if not fingerprints:
        np.savez_compressed(path, keys=keys, data=w.data.astype(dtype),
                            indices=w.indices.astype(np.int16 if small else np.int32),
                            indptr=w.indptr, shape=np.array(w.shape))
        return
    prints, rank = np.unique(lookup_keys(np.asarray(keys, np.uint64), True), return_inverse=True)
    coo = w[1:].tocoo()  # rows of equal fingerprints summed
    w = sparse.csr_matrix((coo.data, (rank[coo.row] + 1, coo.col)),
                          shape=(len(prints) + 1, w.shape[1]))
    w.eliminate_zeros()
    lengths = np.diff(w.indptr)
    np.savez_compressed(path, fingerprints=np.diff(prints, prepend=0).astype(np.uint32),
                        data=w.data.astype(dtype),
                        indices=w.indices.astype(np.uint8 if w.shape[1] <= 256 else np.int32),
                        lengths=lengths.astype(np.uint8 if lengths.max(initial=0) < 256
                                               else np.int32),
                        shape=np.array(w.shape))


def read_folder(folder: str | Path, meta_name: str, weights_name: str, format: str, kind: str,
                fields: Mapping[str, type] | None = None
                ) -> tuple[dict, np.ndarray, sparse.csr_matrix, bool]:
    """``META_NAME.json`` (checked to be of ``format``), and from ``WEIGHTS_NAME.npz`` (see
    :func:`write_weights`) the keys, the float32 weights (sparse: ``.toarray()`` makes them
    dense) and whether the keys are fingerprints; else a :class:`ModelError` saying the folder
    is not a ``kind`` model (also when META's ``fields`` are missing or of other types), named
    as given (``./m`` keeps its ``./``)."""
    path = Path(folder)
    meta = read_meta(path / f"{meta_name}.json", format, f"a {kind} model", fields, folder)
    with read_npz(path / f"{weights_name}.npz", f"a {kind} model", folder) as z:
        fingerprints = "fingerprints" in z
        if fingerprints:
            keys = np.cumsum(z.numbers("fingerprints", 1), dtype=np.uint64)
            indptr = np.concatenate([[0], np.cumsum(z.numbers("lengths", 1), dtype=np.int64)])
        else:
            keys, indptr = z.numbers("keys", 1), z.numbers("indptr", 1)
        data, indices, shape = (z.numbers(name, 1) for name in ("data", "indices", "shape"))
        try:  # a matrix of these parts and shape, whose sizes must agree
            weights = sparse.csr_matrix((data.astype(np.float32), indices, indptr),
                                        shape=tuple(shape.tolist()))
        except (ValueError, TypeError) as e:
            raise z.error(e) from e
    return meta, keys, weights, fingerprints
