"""Slot lattices kept from one run to the next: a decode's :class:`~fstpunct.model.punct.SlotCache`
written to a file and read back by the next decode with the same model.

A surface slot string's slots (its lattices, their closures and puncteme stacks: DESIGN §3)
depend only on the model's channel, its punctemes and the cache's settings, never on the
sentences; building them is about a fifth of a decode of en_ewt test (94 distinct strings,
~0.9 G instructions). A run that built or extended slots writes them all (then the file's
other strings, up to :data:`LIMIT` bytes) to ``slots-<key>.bin`` in the cache folder
(:func:`cache_folder`; the key: a digest of the model and the cache's settings), whole then
renamed; a later run maps the file and takes each string's slots from it when it first needs
them, instead of building them. Every array is stored exactly as it was computed, so what is
read back is bitwise what would be built: outputs do not depend on the file being there.

The file is tied to what the slots are computed from by a fingerprint (the channel's symbols,
scan direction and φ, the punctemes, the backoff's rate and boundary symbol, the cache's
settings, and the size and modification time of every module whose code computes them); a file
with another fingerprint, or one that does not read as this format, is ignored and replaced at
the end of the run. The header carries its CRC-32, checked when the file is opened, and so does
each array, checked when it is first read: a string whose arrays fail the check is built again
(and the file replaced). A folder that cannot be written, or a file that cannot be read, only
costs the time a run without it takes.

Format: the magic line, the header's length (8 bytes, little-endian) and CRC-32 (4 bytes), the
header (UTF-8 JSON: fingerprint; arrays as dtype, shape, offset, length, CRC-32; lattices,
stack families and slots referring to arrays by index, so arrays shared in memory are stored
once and shared again when read), then the arrays, each at an offset that is a multiple of 8.
"""
from __future__ import annotations

import hashlib
import json
import math
import mmap
import os
import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dp.chains import ChainShape, TokenChains
from ..dp.stacks import DenseStack, SparseStack
from ..errors import FstpunctError
from ..files import atomic_path
from ..fst.lattice import Lattice
from .punct import Slot

if TYPE_CHECKING:
    from .punct import SlotCache

__all__ = ["CACHE_ENV", "LIMIT", "SlotStore", "cache_folder"]

MAGIC = b"fstpunct-slots 1\n"
CACHE_ENV = "FSTPUNCT_CACHE_DIR"
LIMIT = 256 << 20
"""The most bytes of arrays one file holds (en_ewt test's strings take 56 MB, train's 132 MB);
beyond it the strings written last (:meth:`SlotStore.save`'s order) are left out."""

_DTYPES = {"<f8": 8, "<i4": 4, "<i8": 8, "<u2": 2, "|u1": 1, "|b1": 1}  # those stored: item size
# the modules whose code computes what a slot holds (their files' size and time: the fingerprint)
_CODE = ("fstpunct.dp._sparse", "fstpunct.dp.stacks", "fstpunct.dp.chains",
         "fstpunct.fst._compose", "fstpunct.fst.lattice", "fstpunct.fst.channel",
         "fstpunct.model.punct", "fstpunct.model.slotstore")

# what reading a file that is not as written raises (a header that parses but is not ours)
_DAMAGED = (ValueError, KeyError, TypeError, IndexError)

Entry = tuple[tuple[str, ...], bool]  # a surface string and whether its slots are token chains


def cache_folder() -> Path | None:
    """Where slot files go: ``$FSTPUNCT_CACHE_DIR`` (set to an empty string: nowhere, none
    kept), else ``$XDG_CACHE_HOME/fstpunct``, else ``~/.cache/fstpunct`` (None without a home)."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return Path(value) if value.strip() else None
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:
            return None
    return Path(base) / "fstpunct"


def _code_stamp() -> list[Any]:
    stamp: list[Any] = []
    for name in _CODE:
        __import__(name)
        path = sys.modules[name].__file__ or ""
        st = os.stat(path)
        stamp.append([name, st.st_size, st.st_mtime_ns])
    return stamp


def _digest(*parts: Any) -> str:
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part.tobytes() if isinstance(part, np.ndarray) else
                 json.dumps(part, ensure_ascii=False).encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


class SlotStore:
    """The slot file of one slot cache's model and settings in ``folder``: :meth:`slots` reads a
    string's slots from it, :meth:`save` writes a cache's (see the module docstring)."""

    def __init__(self, folder: Path, cache: SlotCache) -> None:
        channel = cache.builder.channel
        settings = [sorted(cache.builder.hidden), cache.paired, cache.subset, cache.closures,
                    cache.chains]
        model = [list(channel.symbols), channel.direction, [list(p) for p in cache.punctemes],
                 cache.boundary, float.hex(cache.rate)]
        key = _digest(model, settings, np.ascontiguousarray(channel.phi))
        self.path = folder / f"slots-{key}.bin"
        self.fingerprint = _digest(key, np.ascontiguousarray(cache.weights), _code_stamp())
        self.stale = False  # the file is missing, of another fingerprint or damaged
        self._strings = cache.chain_strings
        self._reader: _Reader | None = None
        try:
            self._reader = _Reader(self.path, self.fingerprint)
        except (OSError, *_DAMAGED):
            self.stale = True

    @classmethod
    def of(cls, cache: SlotCache) -> SlotStore | None:
        """The store of ``cache`` in :func:`cache_folder` (None where there is none)."""
        folder = cache_folder()
        return None if folder is None else cls(folder, cache)

    def slots(self, surface: tuple[str, ...], chained: bool) -> dict[bool, Slot] | None:
        """The slots of ``surface`` (of token chains or not) by semiring (True: max), as they
        were written; None where the file has none or they fail their check."""
        if self._reader is None:
            return None
        try:
            return self._reader.slots((surface, chained), self._strings)
        except _DAMAGED:
            self.stale = True
            return None

    def entries(self) -> list[Entry]:
        """The strings the file holds, in the order they were written."""
        return [] if self._reader is None else list(self._reader.entries)

    def save(self, cache: SlotCache) -> None:
        """Write the slots ``cache`` holds (:meth:`~fstpunct.model.punct.SlotCache.held`'s
        order), then the file's other strings, up to :data:`LIMIT` bytes of arrays; nothing
        where the folder cannot be written."""
        slots: dict[Entry, dict[bool, Slot]] = {}
        for surface, chained, maximum, slot in cache.held():
            slots.setdefault((surface, chained), {})[maximum] = slot
        for entry in self.entries():
            if entry not in slots:
                old = self.slots(*entry)
                if old is not None:
                    slots[entry] = old
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_path(self.path) as tmp:
                _write(tmp, self.fingerprint, slots)
        except (OSError, FstpunctError):
            pass


def _write(path: Path, fingerprint: str, slots: dict[Entry, dict[bool, Slot]]) -> None:
    writer = _Writer()
    entries = []
    for (surface, chained), kinds in slots.items():
        mark = writer.mark()
        records = {str(int(kind)): writer.slot(slot) for kind, slot in kinds.items()}
        if writer.size > LIMIT and entries:
            writer.back_to(mark)
            break
        entries.append({"surface": list(surface), "chained": chained, "slots": records})
    header = json.dumps({"fingerprint": fingerprint, "arrays": writer.arrays,
                         "lattices": writer.lattices, "families": writer.families,
                         "entries": entries}, ensure_ascii=False).encode("utf-8")
    start = _aligned(len(MAGIC) + 12 + len(header))
    with open(path, "wb") as f:
        f.write(MAGIC + len(header).to_bytes(8, "little") +
                zlib.crc32(header).to_bytes(4, "little") + header)
        f.write(b"\0" * (start - f.tell()))
        for data in writer.parts:
            f.write(data)
            f.write(b"\0" * (_aligned(len(data)) - len(data)))


def _aligned(n: int) -> int:
    return (n + 7) // 8 * 8


class _Writer:
    """Arrays, lattices and stack families numbered as they are first met (by identity)."""

    def __init__(self) -> None:
        self.arrays: list[list[Any]] = []
        self.lattices: list[dict[str, Any]] = []
        self.families: list[dict[str, Any]] = []
        self.parts: list[memoryview] = []
        self.size = 0
        self._ids: dict[tuple[str, int], int] = {}
        self._alive: list[tuple[str, object]] = []  # what the ids are of, kept while writing

    def mark(self) -> tuple[int, ...]:
        """Where the writer is, for :meth:`back_to`."""
        return (len(self.arrays), len(self.lattices), len(self.families), len(self._alive),
                self.size)

    def back_to(self, mark: tuple[int, ...]) -> None:
        """Forget everything met since :meth:`mark` gave ``mark``."""
        arrays, lattices, families, alive, self.size = mark
        for kind, x in self._alive[alive:]:
            del self._ids[kind, id(x)]
        del self.arrays[arrays:], self.parts[arrays:], self.lattices[lattices:], \
            self.families[families:], self._alive[alive:]

    def _id(self, kind: str, x: object) -> int | None:
        return self._ids.get((kind, id(x)))

    def _new(self, kind: str, x: object, number: int) -> int:
        self._alive.append((kind, x))
        self._ids[kind, id(x)] = number
        return number

    def array(self, x: np.ndarray | None) -> int | None:
        if x is None:
            return None
        found = self._id("array", x)
        if found is not None:
            return found
        a = np.ascontiguousarray(x)
        data = memoryview(a.reshape(-1).view(np.uint8))  # its bytes, not copied
        self.arrays.append([a.dtype.str, list(a.shape), self.size, len(data), zlib.crc32(data)])
        self.parts.append(data)
        self.size += _aligned(len(data))
        return self._new("array", x, len(self.arrays) - 1)

    def lattice(self, lat: Lattice) -> int:
        found = self._id("lattice", lat)
        if found is not None:
            return found
        self.lattices.append({name: self.array(getattr(lat, name))
                              for name in ("start", "final", "token", "src", "dst", "weight")}
                             | {"maximum": lat.maximum})
        return self._new("lattice", lat, len(self.lattices) - 1)

    def family(self, stack: SparseStack) -> list[int]:
        family, k = stack.family_parts()
        found = self._id("family", family)
        if found is None:
            transposes = family.transposes() if family.built else None
            self.families.append({
                "size": family.size, "count": len(stack), "indptr": self.array(family.indptr),
                "indices": self.array(family.indices), "values": self.array(family.values),
                "transposes": None if transposes is None else [self.array(x) for x in transposes]})
            found = self._new("family", family, len(self.families) - 1)
        return [found, k]

    def slot(self, slot: Slot) -> dict[str, Any]:
        return {"lattice": self.lattice(slot.lattice), "sparse": self.family(slot.sparse),
                "closure": self.array(slot.closure), "possible": self.array(slot.possible),
                "entry": self.array(slot.entry), "built": self.array(slot.built),
                "chains": isinstance(slot.stack, TokenChains)}


class _Reader:
    """A slot file mapped (copy on write: what is read is writable, the file is not), its
    header checked, its arrays and objects made when first asked for."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        with open(path, "rb") as f:
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        size = len(self._map)
        if self._map[:len(MAGIC)] != MAGIC:
            raise ValueError("not a slot file")
        length = int.from_bytes(self._map[len(MAGIC):len(MAGIC) + 8], "little")
        crc = int.from_bytes(self._map[len(MAGIC) + 8:len(MAGIC) + 12], "little")
        begin = len(MAGIC) + 12
        text = self._map[begin:begin + length]
        if len(text) != length or zlib.crc32(text) != crc:
            raise ValueError("the header fails its check")
        header = json.loads(text.decode("utf-8"))
        if header.get("fingerprint") != fingerprint:
            raise ValueError("another model's or code's slots")
        self._start = _aligned(begin + length)
        self._arrays: list[list[Any]] = header["arrays"]
        for dtype, shape, offset, nbytes, _ in self._arrays:
            if nbytes < 0 or not 0 <= offset <= size - self._start - nbytes or \
                    math.prod(shape) * _DTYPES[dtype] != nbytes:
                raise ValueError("an array outside the file")
        self._lattices, self._families = header["lattices"], header["families"]
        self.entries: dict[Entry, dict[str, Any]] = {
            (tuple(e["surface"]), bool(e["chained"])): e["slots"] for e in header["entries"]}
        self._made: dict[tuple[str, int], Any] = {}

    def _array(self, k: int | None) -> Any:
        if k is None:
            return None
        made = self._made.get(("array", k))
        if made is None:
            dtype, shape, offset, nbytes, crc = self._arrays[k]
            view = memoryview(self._map)[self._start + offset:self._start + offset + nbytes]
            if zlib.crc32(view) != crc:
                raise ValueError("an array fails its check")
            made = self._made["array", k] = np.frombuffer(view, dtype=dtype).reshape(shape)
        return made

    def _lattice(self, k: int) -> Lattice:
        made = self._made.get(("lattice", k))
        if made is None:
            rec = self._lattices[k]
            made = self._made["lattice", k] = Lattice(
                *(self._array(rec[name]) for name in ("start", "final", "token", "src", "dst",
                                                      "weight")), bool(rec["maximum"]))
        return made

    def _stack(self, ref: list[int]) -> SparseStack:
        k, value_set = ref
        family = self._made.get(("family", k))
        if family is None:
            rec = self._families[k]
            transposes = rec["transposes"]
            family = self._made["family", k] = SparseStack.family(
                int(rec["count"]), int(rec["size"]), self._array(rec["indptr"]),
                self._array(rec["indices"]), self._array(rec["values"]),
                None if transposes is None else tuple(self._array(x) for x in transposes))
        return family[value_set]

    def slots(self, entry: Entry, strings: tuple[np.ndarray, np.ndarray]
              ) -> dict[bool, Slot] | None:
        """The slots of ``entry`` by semiring (token chains over ``strings``, the cache's)."""
        records = self.entries.get(entry)
        if records is None:
            return None
        out: dict[bool, Slot] = {}
        shapes: dict[int, ChainShape] = {}  # the token chains' shape, one per token array
        for kind, rec in records.items():
            lat, sparse = self._lattice(rec["lattice"]), self._stack(rec["sparse"])
            stack: SparseStack | DenseStack | TokenChains = sparse
            if rec["chains"]:
                tokens = self._lattices[rec["lattice"]]["token"]  # the semirings share it
                shape = shapes.get(tokens)
                if shape is None:
                    shape = shapes[tokens] = ChainShape(
                        lat.size, lat.token, lat.src, lat.dst, strings)
                stack = TokenChains(shape, lat.weight, sparse, lat.maximum)
            elif lat.size == 1:
                stack = DenseStack(sparse.dense())
            out[kind == "1"] = Slot(lat, self._array(rec["closure"]), stack,
                                    self._array(rec["possible"]), sparse,
                                    self._array(rec["entry"]), built=self._array(rec["built"]))
        return out

