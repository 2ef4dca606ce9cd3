"""The parser's model: vocabularies, transitions, feature index and weights, saved as a folder.

Weights are a dense ``(F + 1, A)`` array: one row per known feature key (row 0, all zeros, for
unknown keys), one column per transition, so a configuration is scored for every transition at
once by ``weights[rows].sum(axis=0)``. On disk the (mostly zero) averaged weights are stored
sparse (``weights.npz``) beside ``model.json``; :meth:`Model.compacted` and the options of
:meth:`Model.save` make a small model (:mod:`.storage`).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from ..dp._sparse import hash_lookup, hash_table
from ..errors import InputError, ModelError
from ..files import model_folder, write_json
from ..ud.treebank import punct_relation
from . import features as F
from .punct import EMPTY, MARK, PROPS_VERSION, REL_MARK, WORD, Prepared
from .storage import FINGERPRINT_SHIFT, lookup_keys, pruned, read_folder, write_weights
from .transitions import ROOT_LABEL, LeftArc, Node, RightArc, Shift, State, Transition, leaf

__all__ = ["Vocab", "Input", "Model", "FILES", "FORMAT", "KIND", "LEGALITY_CLASSES"]

FORMAT = "fstpunct-parser-1"
FILES = ("model.json", "weights.npz")  # what Model.save writes
KIND = "a parser"  # what refusals of its folder and SavedAside call it
NONE, ROOT, UNK = 0, 1, 2  # reserved ids in every vocabulary
LEGALITY_CLASSES = 4 * 2 * 3 * 3  # of Model.legality: depth, buffer, what s0 and s1 are


class Vocab:
    """Strings to ids; 0 = none, 1 = root, 2 = unknown, then the known strings."""

    def __init__(self, items: Iterable[str]) -> None:
        self.items = list(items)
        self.index = {s: k for k, s in enumerate(self.items, 3)}

    def __call__(self, s: str) -> int:
        return self.index.get(s, UNK)


@dataclass(frozen=True)
class Input:
    """A prepared sentence with the model's ids: ``leaves[i]`` is token i's node (0 = root),
    ``buf[j]`` the buffer atoms after j shifts, ``marks[i]`` what token i is
    (:attr:`Prepared.marks`; the root and padding nodes count as :data:`MARK`)."""

    prep: Prepared
    leaves: list[Node]
    buf: list[tuple[int, ...]]
    marks: tuple[int, ...]

    @property
    def n(self) -> int:
        return self.prep.n


def _csr_arrays(csr: sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row pointers (intp), columns (int32) and float32 values of a CSR matrix, no column twice
    in a row."""
    csr.sum_duplicates()
    return (csr.indptr.astype(np.intp), csr.indices.astype(np.int32),
            csr.data.astype(np.float32))


def input_marks(prep: Prepared) -> tuple[int, ...]:
    """:attr:`Input.marks` of a prepared sentence."""
    return (MARK,) + (prep.marks or (WORD,) * prep.n) + (MARK,)  # [-1]: padding


class Model:
    """Everything needed to parse: mode, vocabularies, transitions, templates, weights (dense,
    zeros by default; given as a sparse matrix, as a loaded model's are, they stay sparse until
    :attr:`weights` is read)."""

    def __init__(self, mode: str, words: Sequence[str], tags: Sequence[str],
                 labels: Sequence[str], template_names: Sequence[str], keys: np.ndarray,
                 weights: np.ndarray | sparse.csr_matrix | None = None,
                 info: dict | None = None,
                 props_version: int = PROPS_VERSION, lowercase: bool = False) -> None:
        self.mode = mode
        self.lowercase = lowercase  # words lower-cased before lookup: a case-free parser
        self.props_version = props_version  # of the initial punctuation properties
        self.words, self.tags = Vocab(words), Vocab(tags)
        self.labels = list(labels)
        label_id = {lab: k for k, lab in enumerate(self.labels, 1)}
        self.transitions: list[Transition] = (
            [Shift()] + [LeftArc(lab, label_id[lab]) for lab in self.labels if lab != ROOT_LABEL]
            + [RightArc(lab, label_id[lab]) for lab in self.labels])
        self.action = {t: a for a, t in enumerate(self.transitions)}
        self.template_names = list(template_names)
        self.columns = F.compile_templates(self.template_names)
        self.set_keys(keys)
        # the last weights asked of sparse_weights with their CSR arrays; a loaded model's own
        # weights as CSR arrays (until weights are set), made dense only when asked
        self._csr: tuple[np.ndarray, tuple[np.ndarray, ...]] | None = None
        self._stored: tuple[np.ndarray, ...] | None = None
        self._dense: np.ndarray | None = None
        if sparse.issparse(weights):
            self._stored = _csr_arrays(sparse.csr_matrix(weights))
        else:
            self.weights = weights if weights is not None else \
                np.zeros((len(keys) + 1, len(self.transitions)), dtype=np.float32)
        self.info = info or {}
        self.fingerprints = False  # keys are fingerprints (a model saved with them, read back)
        self.folder: Path | None = None  # where it was loaded from, to name it in errors
        self._masks: dict[int, np.ndarray] = {}
        self._mask_table: np.ndarray | None = None
        # per transition, for the compiled greedy parser: 0 shift, 1 left arc, 2 right arc
        self.kinds = np.array([0] + [1 if isinstance(t, LeftArc) else 2
                                     for t in self.transitions[1:]], dtype=np.int8)
        self.label_ids = np.array([t.label_id for t in self.transitions], dtype=np.int64)

    def beam_width(self, beam: int | None) -> int:
        """``beam``, or for ``None`` the beam the model was trained with (1 if not recorded)."""
        return int(self.info.get("beam", 1)) if beam is None else beam

    # --- inputs and features ---------------------------------------------------------------

    def ids(self, prep: Prepared) -> tuple[list[int], list[int]]:
        """Word and tag ids of the prepared tokens."""
        return ([self.words(w.lower() if self.lowercase else w) for w in prep.forms],
                [self.tags(t) for t in prep.upos])

    def input(self, prep: Prepared) -> Input:
        words, tags = self.ids(prep)
        leaves = [leaf(0, ROOT, ROOT, EMPTY)] + [
            leaf(i, w, t, p) for i, (w, t, p) in enumerate(zip(words, tags, prep.props), 1)]
        return Input(prep, leaves, F.buffer_atoms(words, tags, [p.code + 1 for p in prep.props]),
                     input_marks(prep))

    def feature_keys(self, states: Sequence[State], inp: Input) -> np.ndarray:
        rows = np.array([F.atoms(s, inp.buf) for s in states], dtype=np.int64)
        return F.keys(rows, self.columns)

    def __repr__(self) -> str:
        case = ", lower-cased" if self.lowercase else ""
        return (f"<parser.Model ({self.mode}): {len(self.words.items):,} words, "
                f"{len(self.tags.items)} tags, {len(self.labels)} labels{case}>")

    def set_keys(self, keys: np.ndarray) -> None:
        """Known feature keys, sorted; weight row k + 1 belongs to ``keys[k]`` (found through a
        hash table, ``table``: a compiled lookup per key, where a binary search took most of
        parsing)."""
        self.keys = keys
        size = 1 << max(4, (2 * len(keys)).bit_length())  # at most half full
        self.table = hash_table(np.ascontiguousarray(keys, dtype=np.int64), size)

    def rows(self, keys: np.ndarray) -> np.ndarray:
        """Weight rows of feature keys (0 for keys the model does not know)."""
        rows = np.empty(keys.size, dtype=np.int32)
        keys = lookup_keys(np.asarray(keys, np.uint64), self.fingerprints)
        hash_lookup(*self.table, np.ascontiguousarray(keys, dtype=np.int64).ravel(), rows)
        return rows.reshape(keys.shape)

    def features(self, states: Sequence[State], inp: Input) -> np.ndarray:
        return self.rows(self.feature_keys(states, inp))

    @staticmethod
    def legality(state: State, marks: Sequence[int]) -> int:
        """What legality depends on, as a number below :data:`LEGALITY_CLASSES`: the stack depth
        up to 3, whether the buffer is empty, and what s0 and s1 are (``marks``:
        :attr:`Input.marks`)."""
        return ((min(state.depth, 3) * 2 + (state.j < state.n)) * 3
                + marks[state.s0[0]]) * 3 + marks[state.s1[0]]

    @property
    def weights(self) -> np.ndarray:
        """The dense ``(F + 1, A)`` weights (those of a loaded model made dense on first use:
        the compiled greedy parser reads :meth:`sparse_weights` and never needs them)."""
        if self._dense is None:
            assert self._stored is not None  # only a loaded model has no dense weights
            indptr, indices, data = self._stored
            self._dense = sparse.csr_matrix((data, indices, indptr), shape=(
                len(self.keys) + 1, len(self.transitions))).toarray()
        return self._dense

    @weights.setter
    def weights(self, weights: np.ndarray) -> None:
        self._dense, self._stored = weights, None

    def sparse_weights(self, weights: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``weights`` (by default the model's own; others of its shape, never changed in
        place) as CSR arrays: row pointers, columns, values; remembered for the last weights
        asked."""
        if weights is None:
            if self._stored is not None:
                return self._stored
            weights = self.weights
        if self._csr is None or self._csr[0] is not weights:
            self._csr = (weights, _csr_arrays(sparse.csr_matrix(weights)))
        return self._csr[1]

    def mask_table(self) -> np.ndarray:
        """:meth:`mask` of every :meth:`legality` class, row k for class k (a stand-in
        configuration of each class: legality reads nothing else)."""
        if self._mask_table is None:
            rows = []
            for k in range(LEGALITY_CLASSES):
                rest, m1 = divmod(k, 3)
                rest, m0 = divmod(rest, 3)
                depth, buffer = divmod(rest, 2)
                state = State(((0,), ((1,), None)), depth, 1 - buffer, 1)
                rows.append(self.mask(state, (m0, m1)))
            self._mask_table = np.stack(rows)
        return self._mask_table

    def mask(self, state: State, marks: Sequence[int]) -> np.ndarray:
        """0 for legal transitions, -inf for illegal ones (the same for every configuration of
        one :meth:`legality` class). An arc that would make a word punctuation (relation
        ``punct``) or punctuation by its relation alone a word (any relation but ``punct``; root
        only in a sentence without words) is illegal, so parsing keeps the punctuation of
        :attr:`fstpunct.ud.treebank.Word.is_punct`."""
        key = self.legality(state, marks)
        m = self._masks.get(key)
        if m is None:
            ends = (marks[state.s0[0]], marks[state.s1[0]])
            m = np.array([0.0 if t.is_legal(state) and self._keeps(t, ends) else -np.inf
                          for t in self.transitions], dtype=np.float32)
            self._masks[key] = m
        return m

    @staticmethod
    def _keeps(t: Transition, marks: Sequence[int]) -> bool:
        """Whether arc ``t`` keeps what its dependent is (``marks``: of s0 and s1). Punctuation
        by its relation alone heads no word, so that a sentence with words has a word (or
        ``PUNCT``) as its root."""
        if t.label is None:
            return True
        dep, head = (marks[1], marks[0]) if isinstance(t, LeftArc) else marks
        if dep == WORD:
            return head != REL_MARK and not punct_relation(t.label)
        return dep != REL_MARK or punct_relation(t.label) or t.label == ROOT_LABEL

    # --- persistence -------------------------------------------------------------------------

    def compacted(self, threshold: float) -> Model:
        """A copy without the weights of magnitude below ``threshold`` nor the features left
        with none (:func:`~fstpunct.parser.storage.pruned`)."""
        keys, weights = pruned(self.keys, self.weights, threshold)
        out = Model(self.mode, self.words.items, self.tags.items, self.labels,
                    self.template_names, keys, weights,
                    {**self.info, "pruned_below": threshold}, self.props_version,
                    self.lowercase)
        out.fingerprints = self.fingerprints
        return out

    def save(self, folder: str | Path, float16: bool = False, fingerprints: bool = False
             ) -> None:
        """Write ``weights.npz`` and ``model.json`` into ``folder`` (created if needed; one
        holding anything else is left as it was, the parser written beside it:
        :func:`~fstpunct.files.model_folder`); weights in float16 and keys as fingerprints on
        request (:mod:`.storage`; a model read back with fingerprints keeps them)."""
        keys = self.keys << np.uint64(FINGERPRINT_SHIFT) if self.fingerprints else self.keys
        with model_folder(folder, FILES, KIND) as tmp:  # whole or not at all
            write_weights(tmp / FILES[1], keys, self.weights,
                          np.float16 if float16 else np.float32,
                          fingerprints or self.fingerprints)
            write_json(tmp / FILES[0], self._meta(), atomic=False)  # flushed with the folder

    def save_meta(self, folder: str | Path) -> None:
        """Rewrite ``model.json`` only (vocabularies, templates, training info), whole or not
        at all."""
        write_json(Path(folder) / FILES[0], self._meta())

    def _meta(self) -> dict[str, Any]:
        """What ``model.json`` holds."""
        meta = {"format": FORMAT, "mode": self.mode, "props_version": self.props_version,
                "templates": self.template_names,
                "labels": self.labels, "tags": self.tags.items, "words": self.words.items,
                "info": self.info}
        if self.lowercase:  # absent from the files of case-sensitive models, as before
            meta["lowercase"] = True
        return meta

    @classmethod
    def load(cls, folder: str | Path) -> Model:
        meta, keys, csr, fingerprints = read_folder(
            folder, "model", "weights", FORMAT, "parser",
            {"mode": str, "words": list, "tags": list, "labels": list, "templates": list})
        model = cls(meta["mode"], meta["words"], meta["tags"], meta["labels"],
                    meta["templates"], keys, csr, meta.get("info"),
                    meta.get("props_version", 1),  # models without it predate version 2
                    meta.get("lowercase", False))
        if csr.shape != (len(keys) + 1, len(model.transitions)):
            raise ModelError(f"{folder}: weights of shape {csr.shape} do not fit the model")
        model.fingerprints = fingerprints
        model.folder = Path(folder)
        return model

    def expect_mode(self, wanted: str, use: str) -> None:
        """An :class:`~fstpunct.errors.InputError` naming the parser's folder, its mode and
        ``wanted`` unless it parses in punctuation mode ``wanted`` (``use``: what needs it)."""
        if self.mode != wanted:
            raise InputError(f"{self.folder or 'the parser'}: a {self.mode!r}-mode parser; "
                             f"{use} needs a {wanted!r}-mode one")
