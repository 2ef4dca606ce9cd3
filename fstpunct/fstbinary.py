"""The arcs of an OpenFst machine as numpy arrays, read from its binary serialization (what
``Fst.write`` writes) instead of arc by arc through pynini's iterators, which costs a Python call
per arc.

OpenFst's ``vector`` format: a header (magic number, FST and arc type names, version, flags,
properties, start state, numbers of states and arcs, then the input and output symbol tables if
the flags say so), then per state its final weight, its number of arcs (int64) and the arcs, each
``ilabel`` (int32), ``olabel`` (int32), weight, ``nextstate`` (int32). Weights are float32, or
float64 for the ``log64``/``tropical64`` arc types.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
import pynini

from .errors import FstpunctError

__all__ = ["FstArcs", "read_arcs"]

_MAGIC = 2125659606
_SYMBOL_MAGIC = 2125658996
_HAS_ISYMBOLS, _HAS_OSYMBOLS = 1, 2
_WIDE = ("log64", "tropical64")


@dataclass(frozen=True)
class FstArcs:
    """Every arc of a machine in state order (as pynini iterates them)."""

    start: int
    n_states: int
    src: np.ndarray  # int64
    dst: np.ndarray  # int64
    ilabel: np.ndarray  # int64
    olabel: np.ndarray  # int64
    weight: np.ndarray  # float64 (−log of the arc's value)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def string(self) -> str:
        (size,) = self.take("i")
        text = self.data[self.at:self.at + size].decode("utf-8")
        self.at += size
        return text

    def skip_symbols(self) -> None:
        magic, = self.take("i")
        if magic != _SYMBOL_MAGIC:
            raise FstpunctError("not an OpenFst symbol table")
        self.string()
        _, size = self.take("qq")
        for _ in range(size):
            self.string()
            self.take("q")


def read_arcs(fst: pynini.Fst) -> FstArcs:
    """The arcs of a mutable (vector) FST."""
    r = _Reader(fst.write_to_string())
    magic, = r.take("i")
    if magic != _MAGIC:
        raise FstpunctError("not an OpenFst binary")
    kind, arc_type = r.string(), r.string()
    if kind != "vector":
        raise FstpunctError(f"cannot read {kind!r} FSTs, only vector ones")
    _, flags, _, start, n_states, _ = r.take("iiQqqq")  # the arc count is not kept up
    if flags & _HAS_ISYMBOLS:
        r.skip_symbols()
    if flags & _HAS_OSYMBOLS:
        r.skip_symbols()
    wide = arc_type in _WIDE
    arc = np.dtype([("ilabel", "<i4"), ("olabel", "<i4"), ("weight", "<f8" if wide else "<f4"),
                    ("nextstate", "<i4")])
    head = "dq" if wide else "fq"
    blocks, counts = [], np.empty(n_states, dtype=np.int64)
    for s in range(n_states):
        _, count = r.take(head)
        blocks.append(np.frombuffer(r.data, dtype=arc, count=count, offset=r.at))
        r.at += count * arc.itemsize
        counts[s] = count
    arcs = np.concatenate(blocks) if blocks else np.zeros(0, dtype=arc)
    if r.at != len(r.data):
        raise FstpunctError("malformed OpenFst binary")
    return FstArcs(start, n_states, np.repeat(np.arange(n_states), counts),
                   arcs["nextstate"].astype(np.int64), arcs["ilabel"].astype(np.int64),
                   arcs["olabel"].astype(np.int64), arcs["weight"].astype(np.float64))
