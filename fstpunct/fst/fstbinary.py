"""The arcs of an OpenFst machine as numpy arrays, read from its binary serialization (what
``Fst.write`` writes) instead of arc by arc through pynini's iterators, which costs a Python call
per arc; a ``vector`` file is read without pynini at all (:func:`parse_file`).

OpenFst's ``vector`` format: a header (magic number, FST and arc type names, version, flags,
properties, start state, numbers of states and arcs, then the input and output symbol tables if
the flags say so), then per state its final weight, its number of arcs (int64) and the arcs, each
``ilabel`` (int32), ``olabel`` (int32), weight, ``nextstate`` (int32). Weights are float32, or
float64 for the ``log64``/``tropical64`` arc types.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import FstpunctError

if TYPE_CHECKING:
    import pynini

__all__ = ["FstArcs", "FstFile", "NotAnFst", "parse_file", "read_arcs"]

_MAGIC = 2125659606
_SYMBOL_MAGIC = 2125658996
_HAS_ISYMBOLS, _HAS_OSYMBOLS = 1, 2
_WIDE = ("log64", "tropical64")


@dataclass(frozen=True, eq=False)
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

    def symbols(self) -> dict[int, str]:
        """A symbol table: symbol of every key."""
        magic, = self.take("i")
        if magic != _SYMBOL_MAGIC:
            raise FstpunctError("not an OpenFst symbol table")
        self.string()
        _, size = self.take("qq")
        table = {}
        for _ in range(size):
            symbol = self.string()
            key, = self.take("q")
            table[key] = symbol
        return table


@dataclass(frozen=True, eq=False)
class FstFile:
    """What a machine's binary holds: its arc type, input symbols (symbol of every key; None
    without a table) and arcs."""

    arc_type: str
    input_symbols: dict[int, str] | None
    arcs: FstArcs


def read_arcs(fst: pynini.Fst) -> FstArcs:
    """The arcs of a mutable (vector) FST (through its serialisation; the tests' reference for
    what OpenFst writes)."""
    return _parse(fst.write_to_string()).arcs


def parse_file(data: bytes) -> FstFile:
    """A machine's file from its bytes ``data`` (the file is read once, by the caller, who may
    use the bytes again, e.g. to hash them): a ``vector`` one parsed directly; another kind
    (e.g. ``const``) converted by pynini from the same bytes. FstpunctError (or what pynini
    raises: FstIOError, an OSError) if it is not a well-formed OpenFst machine."""
    try:
        return _parse(data)
    except _OtherKind:
        import pynini

        return _parse(pynini.Fst.read_from_string(data).write_to_string())


class NotAnFst(FstpunctError):
    """The bytes do not start with OpenFst's magic number."""


class _OtherKind(Exception):
    """The binary is not of the ``vector`` kind."""


def _parse(data: bytes) -> FstFile:
    try:
        return _parse_vector(data)
    except (FstpunctError, _OtherKind):
        raise
    except (struct.error, UnicodeDecodeError, ValueError, IndexError, OverflowError,
            MemoryError) as e:
        raise FstpunctError(f"malformed OpenFst binary ({e})") from e


def _parse_vector(data: bytes) -> FstFile:
    if data[:4] != _MAGIC.to_bytes(4, "little"):  # before pynini could see it (parse_file)
        raise NotAnFst("not an OpenFst binary")
    r = _Reader(data)
    r.take("i")  # the magic number
    kind, arc_type = r.string(), r.string()
    if kind != "vector":
        raise _OtherKind(f"cannot read {kind!r} FSTs, only vector ones")
    _, flags, _, start, n_states, _ = r.take("iiQqqq")  # the arc count is not kept up
    input_symbols = r.symbols() if flags & _HAS_ISYMBOLS else None
    if flags & _HAS_OSYMBOLS:
        r.symbols()
    # every field is a whole number of 32-bit words: a state is its final weight (1 or 2 words)
    # and its arc count (2), then 4 (or 5) words per arc
    wide = arc_type in _WIDE
    weight_words = 2 if wide else 1
    head, arc_words = weight_words + 2, weight_words + 3
    words = np.frombuffer(r.data, dtype="<u4", offset=r.at)
    starts, counts = np.empty(n_states, dtype=np.int64), np.empty(n_states, dtype=np.int64)
    at = 0
    for s in range(n_states):
        count = int(words[at + head - 2]) | int(words[at + head - 1]) << 32
        starts[s], counts[s] = at + head, count
        at += head + arc_words * count
    if 4 * at != len(r.data) - r.at:
        raise FstpunctError("malformed OpenFst binary")
    # the states' heads cut out, the arcs are one (arcs, arc_words) table
    heads = (starts[:, None] - head + np.arange(head)).ravel()
    table = np.delete(words, heads).reshape(-1, arc_words)
    if wide:
        weight = np.ascontiguousarray(table[:, 2:4]).view("<f8")[:, 0]
    else:
        weight = table[:, 2].view("<f4").astype(np.float64)
    labels = table.view("<i4")
    return FstFile(arc_type, input_symbols, FstArcs(
        start, n_states, np.repeat(np.arange(n_states), counts),
        labels[:, arc_words - 1].astype(np.int64), labels[:, 0].astype(np.int64),
        labels[:, 1].astype(np.int64), weight))
