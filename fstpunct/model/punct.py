"""The punctuation model p(x | T) = Σ_T′ p_θ(T′ | T) · Π_i p_φ(xᵢ | uᵢ(T′)) and its inference.

A :class:`PunctModel` joins the Attach model (θ), the channel (φ) and a **backoff** that gives
every sentence nonzero probability: at every node

    p(l, r | w) = (1 − β) · p_θ(l, r | w)  [(l, r) ∈ W_d]   +   β · q(l) · q(r),
    q(l) = (1 − s) · (s / |Σ|)^|l|,

a proper distribution over *all* pairs of token strings (Σ = the channel's tokens except ∘).
Its contribution to a node's matrix is β(1 − s)² · C_i · B · C_k with the closures
C_i = Σ_l (s/|Σ|)^|l| M_i(l) = (I − (s/|Σ|) Σ_υ M_i(υ))⁻¹
(:meth:`~fstpunct.fst.lattice.Lattice.closure`),
so the infinite sum is exact. Since the channel keeps every window with nonzero probability,
any surface slot string can come from one constituent's puncteme, and no sentence has p = 0.

:class:`Inference` fixes θ and φ and turns a sentence into a
:class:`~fstpunct.dp.treedp.MatrixTree` whose candidates are the pairs of W_d the slot lattices
allow, plus the backoff. Every node's matrices are the stacks of its two slots, one per distinct
surface string (a :class:`Slot`: the lattice and M(l) for every l of V, then the closure), kept
in a :class:`SlotCache` that several Inferences of one model can share.
"""
from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..batching import batches
from ..dp.chains import ChainShape, TokenChains
from ..dp.chains import strings as chain_strings
from ..dp.forest import Forest, KernelStack, Outside, SlotVectors
from ..dp.forest import log_partition as forest_log_partition
from ..dp.forest import outside as forest_outside
from ..dp.forest import sample as forest_sample
from ..dp.forest import viterbi as forest_viterbi
from ..dp.forest import viterbi_and_log_partition as forest_viterbi_and_log_partition
from ..dp.semiring import MaxProduct, SumProduct
from ..dp.sparse import ranges
from ..dp.stacks import DenseStack, SparseStack, merged
from ..errors import as_floats, refuse_above, refuse_below, refuse_count
from ..fst.channel import Channel
from ..fst.lattice import BlockClosures, EditCounter, Lattice, LatticeBuilder, product_stacks
from ..ud.slots import BOUNDARY, SlotSentence
from ._punct import candidate_arrays
from .attach import AttachData, AttachModel, pair_scores, probabilities
from .vocab import Puncteme, Vocab

if TYPE_CHECKING:  # the readable tree DP, the tests' oracle: imported by the methods using it
    from ..dp.treedp import Gradients, MatrixTree, Outer

__all__ = ["BACKOFF", "Batch", "Inference", "PunctModel", "Settings", "Slot", "SlotCache",
           "log_probs"]

BACKOFF = -1  # the label of the backoff candidate
# the settings that are probabilities: β of backing off, s of a backoff string going on
PROBABILITIES = ("backoff", "continuation")
# the largest token cost: a bound that keeps the prior's arithmetic finite (−cost · tokens, θ's
# start and the L2 prior's centre: 1e308 made it −inf, and training NaN), far above any useful
# cost (bundled: 4)
MAX_TOKEN_COST = 1000.0
CHUNK = 2000  # sentences per batch of the compiled tree DP (log_probs)


@dataclass(frozen=True)
class Settings:
    """Hyperparameters, recorded with every trained model. Each is a number of at least 0
    within a float's range (model.json's numbers; a larger int or Decimal is refused, not
    made a float's inf); ``backoff`` and ``continuation`` are probabilities, at most 1
    (:data:`PROBABILITIES`); ``token_cost`` is at most :data:`MAX_TOKEN_COST`. The others
    have no upper bound."""

    backoff: float = 1e-3       # β
    continuation: float = 0.5   # s
    xi: float = 2.0             # posterior-regularisation tilt on unmatched symmetric marks
    l2: float = 1.0             # on θ
    prior: float = 1.0          # Dirichlet pseudo-counts per window, centred on the initial φ
    # θ's L2 prior is centred on −token_cost per underlying token (4: the bundled models';
    # RESULTS.md, "Phantom marks"); 0 centres it on the uniform distribution
    token_cost: float = 4.0
    # word contexts for this many of the most frequent training words (features.py; 0: none;
    # 500: the bundled +NC models', chosen on dev; RESULTS.md, "Lexical contexts")
    lexical: int = 500

    def __post_init__(self) -> None:
        floats = asdict(self)
        lexical = floats.pop("lexical")
        # lexical −1 used to give every word but the rarest a feature of its own
        refuse_count(0, required=True, lexical=lexical)  # a count: it slices the word list
        refuse_below(0, required=True, **floats)
        refuse_above(MAX_TOKEN_COST, token_cost=floats["token_cost"])
        # stored as the declared types, Python's (numpy's numbers, a Decimal, a Fraction, a
        # bool as given): for the compiled DPs and model.json
        for name, value in as_floats(**floats, lexical=lexical).items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "lexical", int(lexical))
        refuse_above(1, **{name: floats[name] for name in PROBABILITIES})  # shown as given

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass(eq=False)
class PunctModel:
    """A trained (or initial) punctuation model: the Attach model's features and pair table
    (``attach``, with the vocabulary V of punctemes and pairs), its weights θ (``theta``:
    contexts × pair features), the channel p_φ(x | u) (``channel``) and the training
    settings, among them the backoff. :meth:`prepare` featurises sentences into a
    :class:`Batch`; :class:`Inference` runs the tree dynamic programs over it."""

    attach: AttachModel
    theta: np.ndarray
    channel: Channel
    settings: Settings = field(default_factory=Settings)

    def __repr__(self) -> str:
        return (f"<PunctModel: {len(self.vocab.tokens)} tokens, {len(self.vocab.pairs)} pairs, "
                f"{len(self.theta):,} weights, {self.channel.direction} channel>")

    @property
    def vocab(self) -> Vocab:
        return self.attach.vocab

    def prepare(self, sentences: Sequence[SlotSentence]) -> Batch:
        return Batch.build(self, sentences)

    @cached_property
    def pair_strings(self) -> list[tuple[Puncteme, Puncteme]]:
        """The (l, r) punctemes of every pair of the table."""
        return [self.vocab.pair_strings(p) for p in range(len(self.vocab.pairs))]

    @cached_property
    def pair_scores(self) -> np.ndarray:
        """The Attach scores Θ Gᵀ (contexts × pairs), computed once: θ is never changed in
        place (training makes a new model each iteration)."""
        return pair_scores(self.theta, self.attach)

    def attach_probabilities(self, data: AttachData, libm: bool = True) -> np.ndarray:
        """p_θ(l, r | w) for every candidate row of ``data``, from :attr:`pair_scores`
        (``libm``: as :func:`~.attach.probabilities`)."""
        return probabilities(self.theta, data, self.pair_scores, libm)

    @cached_property
    def unmatched(self) -> np.ndarray:
        """Whether each pair of the table has unmatched symmetric marks (bool array)."""
        return self.vocab.unmatched_mask(self.attach.symmetric)


@dataclass(frozen=True, eq=False)
class Batch:
    """Sentences made ready for inference: surface slot strings in model symbols (∘ opening
    slot 0) and the featurised Attach rows."""

    sentences: tuple[SlotSentence, ...]
    surfaces: tuple[tuple[tuple[str, ...], ...], ...]
    data: AttachData

    @classmethod
    def build(cls, model: PunctModel, sentences: Sequence[SlotSentence]) -> Batch:
        return cls(tuple(sentences), _slot_surfaces(model.vocab, sentences),
                   AttachData.build(model.attach, sentences))

    def __len__(self) -> int:
        return len(self.sentences)

    def nodes(self, s: int) -> range:
        return range(self.data.sentence_offsets[s], self.data.sentence_offsets[s + 1])


def _slot_surfaces(vocab: Vocab, sentences: Sequence[SlotSentence]
                  ) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """Every sentence's surface slot strings in model symbols, ∘ opening slot 0."""
    mapped: dict[tuple[str, ...], tuple[str, ...]] = {}  # few distinct slot strings

    def surface(slot: tuple[str, ...]) -> tuple[str, ...]:
        x = mapped.get(slot)
        if x is None:
            x = mapped[slot] = vocab.map_slot(slot)
        return x

    return tuple(((BOUNDARY, *surface(s.slots[0])), *map(surface, s.slots[1:]))
                 for s in sentences)


@dataclass(eq=False)
class Posteriors:
    """log Z of one sentence and the posteriors of its nodes' Attach rows."""

    log_z: float
    rows: np.ndarray        # flat Attach rows with posterior mass
    posterior: np.ndarray   # their posterior probabilities


@dataclass(eq=False)
class Expectations(Posteriors):
    """What the E-step needs from one sentence."""

    arc_counts: np.ndarray  # expected count of every channel arc


@dataclass(eq=False)
class Slot:
    """One surface string's lattice in one semiring, with the stack of its puncteme matrices
    (M(l) for every l of V, then the backoff closure) and which of them are nonzero; in a
    :class:`SlotCache` with ``subset``, M(l) only for the punctemes ``built`` (the others are
    stored as 0 and not possible); with ``chains``, for a string few nodes use, M(l) as
    :class:`~fstpunct.dp.chains.TokenChains` (applied, never built). ``closure`` is the
    closure as a dense matrix, for the E-step's edit counter (None where the cache does not
    keep it)."""

    lattice: Lattice
    closure: np.ndarray | None
    stack: SparseStack | DenseStack | TokenChains
    possible: np.ndarray  # (|V|,) bool
    sparse: SparseStack  # the stack as a SparseStack (of token chains: the stored closure)
    entry: np.ndarray  # λᵀ ⊗ M(∘) where the slot opens a sentence (surface ∘ …), else empty
    counter: EditCounter | None = None  # built on the first E-step that needs it
    built: np.ndarray | None = None  # (|V|,) bool: the punctemes whose M(l) is built (None: all)

    @cached_property
    def kernel(self) -> tuple[KernelStack, SlotVectors]:
        """The stack and vectors as the compiled tree DP reads them."""
        lat = self.lattice
        stack = (self.stack.kernel() if isinstance(self.stack, TokenChains)
                 else KernelStack.of(self.sparse))
        return stack, SlotVectors(lat.start, lat.final, self.entry)


class SlotCache:
    """Slots per distinct surface string for fixed channel-arc weights, the least recently used
    dropped beyond ``limit`` (None: none dropped); one cache can serve many :class:`Inference`
    objects (decode chunks) of the same model. With ``paired``, a surface string's sum and max
    slots are built together, in one pass (for callers that need both, as decoding does).

    With ``subset``, a slot's stack holds M(l) only for the punctemes asked for (:meth:`get`'s
    ``needed``: an Inference asks for the punctemes of the candidates that use the slot),
    the others stored as 0; punctemes asked for later are added. Every M(l) is computed
    exactly as in the whole stack (the same products in the same order), and a candidate
    only ever reads the matrices of its own punctemes, so the tree DPs' results are the
    same bit for bit, from smaller stacks (results/speed-history.md, "Decode against a conllu
    process: slot stacks over the punctemes a slot carries": every puncteme can produce every
    surface string through the channel, but a slot meets only some of them).

    Without ``closures``, a slot does not keep its closure as a dense matrix once its stack
    holds it (the tree DPs read the stack; only the E-step's edit counter reads the dense
    matrix, and :meth:`counter` computes it again): decoding's caches, ~11 MB over en_ewt
    test.

    With ``chains`` (> 0), where at most that many node sides meet a string (:meth:`get`'s
    ``uses``: in one chunk), its slots are of token chains
    (:class:`~fstpunct.dp.chains.TokenChains`: M(l) applied to the tree DP's vectors token
    matrix by token matrix, never built; the closure stored), kept apart from its stack
    slots, so which a chunk gets depends on that chunk alone. Only the inside pass and
    Viterbi read them (not the outside pass or sampling), and their sums and max-products
    are associated otherwise than in built stacks (last-bit differences). Such a cache only
    decodes, so its sum closures are computed block by block as well
    (:class:`~fstpunct.fst.lattice.BlockClosures`: a fraction of the work, last-bit
    differences)."""

    def __init__(self, model: PunctModel, builder: LatticeBuilder | None = None,
                 weights: np.ndarray | None = None, limit: int | None = 256,
                 paired: bool = False, subset: bool = False, closures: bool = True,
                 chains: int = 0) -> None:
        channel, settings = model.channel, model.settings
        self.builder = builder or LatticeBuilder(channel)
        self.weights = self.builder.arc_weights() if weights is None else weights
        self.punctemes = tuple(tuple(channel.index(t) for t in p) for p in model.vocab.punctemes)
        self.boundary = channel.index(BOUNDARY)
        self.rate = settings.continuation / (len(channel.symbols) - 1)
        self.limit, self.paired, self.subset, self.closures = limit, paired, subset, closures
        self.chains = chains
        self._blocks = BlockClosures() if chains else None
        self._strings = chain_strings(self.punctemes)
        self._slots: OrderedDict[tuple[tuple[str, ...], bool], Slot] = OrderedDict()
        self._chained: OrderedDict[tuple[tuple[str, ...], bool], Slot] = OrderedDict()

    def get(self, surface: tuple[str, ...], maximum: bool = False,
            needed: np.ndarray | None = None, uses: int | None = None) -> Slot:
        """The slot of ``surface`` in the max (``maximum``) or sum semiring, with M(l) built
        at least for the punctemes ``needed`` ((|V|,) bool; None: all); ``uses``: how many
        node sides meet the string where it is asked for (None: unknown), which decides
        between stacks and token chains (see the class)."""
        key = (surface, maximum)
        chained = uses is not None and uses <= self.chains
        slots = self._chained if chained else self._slots
        slot = slots.get(key)
        if slot is None:
            kinds = [not maximum, maximum] if self.paired else [maximum]  # the asked-for last
            for kind, built in zip(kinds, self._build(surface, kinds, needed, chained)):
                slots[surface, kind] = built
            slot = slots[key]
            while self.limit is not None and len(slots) > self.limit:
                slots.popitem(last=False)
        elif chained:
            slots.move_to_end(key)
        else:
            self._slots.move_to_end(key)
            if slot.built is not None:
                missing = ~slot.built if needed is None else needed & ~slot.built
                if missing.any():
                    self._extend(surface, slot, missing)
                    slot = self._slots[key]
        return slot

    def _build(self, surface: tuple[str, ...], kinds: list[bool], needed: np.ndarray | None,
               chained: bool = False) -> list[Slot]:
        """The slots of ``surface`` in the semirings ``kinds`` (True: max), in one pass; with
        ``chained``, of token chains (unless the string has no tokens)."""
        other = [(self._slots if chained else self._chained).get((surface, k)) for k in kinds]
        if all(other):  # built the other way for another chunk: the same lattices and closures
            lattices = [slot.lattice for slot in other]
            closures = [_last_matrix(slot.sparse) for slot in other]
        else:
            lattices = self.builder.lattices(surface, self.weights, kinds)
            closures = [self._closure(lat) for lat in lattices]
        extras = [[closure] for closure in closures]
        if chained and lattices[0].size > 1:
            stored = product_stacks(lattices, [], extras)  # the closures alone
            lat = lattices[0]
            shape = ChainShape(lat.size, lat.token, lat.src, lat.dst, self._strings)
            return [self._slot(surface, lat, closure, part,
                               chains=TokenChains(shape, lat.weight, part, lat.maximum))
                    for lat, closure, part in zip(lattices, closures, stored)]
        if not self.subset or needed is None or lattices[0].size == 1:
            stacks, built = product_stacks(lattices, self.punctemes, extras), None
        else:
            stacks = product_stacks(lattices, self.punctemes, extras, only=np.flatnonzero(needed))
            built = needed.copy()
        return [self._slot(surface, *parts, built) for parts in zip(lattices, closures, stacks)]

    def _extend(self, surface: tuple[str, ...], slot: Slot, missing: np.ndarray) -> None:
        """Add M(l) for the punctemes ``missing`` to ``slot`` and to the other semiring's slot
        built with it (they share ``built``), replacing them in the cache."""
        kinds = [k for k in (False, True)
                 if (surface, k) in self._slots and self._slots[surface, k].built is slot.built]
        old = [self._slots[surface, k] for k in kinds]
        part = product_stacks([s.lattice for s in old], self.punctemes, [[] for _ in old],
                              only=np.flatnonzero(missing))
        stacks = merged([s.sparse for s in old], part)
        built = slot.built | missing
        for k, s, stack in zip(kinds, old, stacks):
            self._slots[surface, k] = replace(s, stack=stack, sparse=stack,
                                              possible=stack.nonzero[:-1], built=built)

    def _slot(self, surface: tuple[str, ...], lat: Lattice, closure: np.ndarray,
              sparse: SparseStack, built: np.ndarray | None = None,
              chains: TokenChains | None = None) -> Slot:
        """The slot of ``surface`` over its lattice, closure and sparse stack (or token
        chains, ``sparse`` then holding the closure alone)."""
        stack: SparseStack | DenseStack | TokenChains = sparse if chains is None else chains
        if lat.size == 1:  # no tokens: dense 1×1 matrices are cheaper to apply
            stack = DenseStack(sparse.dense())
        entry = np.zeros(0)
        if surface[:1] == (BOUNDARY,):
            semiring = MaxProduct if lat.maximum else SumProduct
            entry = semiring.vecmat(lat.start, lat.token_matrix(self.boundary))
        possible = (sparse if chains is None else chains).nonzero[:-1]
        return Slot(lat, closure if self.closures else None, stack, possible, sparse, entry,
                    built=built)

    def _closure(self, lattice: Lattice) -> np.ndarray:
        if self._blocks is None:
            return lattice.closure(self.rate, self.boundary)
        return self._blocks.of(lattice, self.rate, self.boundary)

    def counter(self, surface: tuple[str, ...], needed: np.ndarray | None = None) -> EditCounter:
        """The edit counter of a (sum) slot (``needed`` as :meth:`get`'s: it counts edits over
        the slot's lattice and closure, whatever punctemes its stack holds)."""
        slot = self.get(surface, needed=needed)
        if slot.counter is None:
            closure = slot.closure
            if closure is None:  # not kept: the same matrix again
                closure = self._closure(slot.lattice)
            slot.counter = EditCounter(self.builder, surface, self.weights, slot.lattice,
                                       self.punctemes, closure, self.rate, self.boundary)
        return slot.counter


def _last_matrix(stack: SparseStack) -> np.ndarray:
    """A stack's last matrix as a dense array (a slot's closure: every stored entry as it was
    computed, 0 elsewhere)."""
    return stack.dense(len(stack) - 1)[0]


class _Flat(NamedTuple):
    """The candidates of consecutive nodes, flat: node t's are ``offsets[t]:offsets[t+1]``
    (the rows the slot lattices allow, then the backoff), each with its weight, left and right
    stack indices and label (flat Attach row, or :data:`BACKOFF`)."""

    offsets: np.ndarray
    weights: np.ndarray
    left_of: np.ndarray
    right_of: np.ndarray
    labels: np.ndarray

    def per_node(self) -> list[tuple[np.ndarray, ...]]:
        """(weights, left_of, right_of, labels) of every node."""
        arrays = (self.weights, self.left_of, self.right_of, self.labels)
        bounds = self.offsets.tolist()
        return [tuple(x[a:b] for x in arrays) for a, b in zip(bounds, bounds[1:])]


class _Found(NamedTuple):
    """The slots candidates were chosen over (one per surface string), their semiring and the
    node sides that meet each string (None: not counted; :meth:`SlotCache.get`'s ``uses``)."""

    maximum: bool
    slots: list[Slot]
    uses: Sequence[int | None]


class _Layout(NamedTuple):
    """The forest of a range of a batch's sentences without stacks, the surface string of each
    of its slot indices, and its candidates."""

    part: range
    surfaces: tuple[tuple[str, ...], ...]
    forest: Forest
    candidates: _Flat
    needed: list[np.ndarray | None]  # per surface string: the punctemes its slots need
    found: _Found


class _Choices(NamedTuple):
    """A sentence's node spans and candidates."""

    spans: list[tuple[int, int]]
    candidates: list[tuple[np.ndarray, ...]]  # per node: weights, left_of, right_of, labels
    needed: list[np.ndarray | None]  # per slot: the punctemes the candidates need there
    found: _Found


class Inference:
    """θ and φ fixed: one sentence at a time, over slots cached per surface string.

    ``slots`` shares a :class:`SlotCache` between Inferences; without one, a cache over
    :attr:`weights` is made when first needed. ``libm``: as :func:`~.attach.probabilities`
    (decode's analysis is without it: :func:`fstpunct.apps.decode.inference_of`)."""

    def __init__(self, model: PunctModel, batch: Batch, tilt: float = 0.0,
                 slots: SlotCache | None = None, libm: bool = True) -> None:
        self.model, self.batch = model, batch
        self.probs = model.attach_probabilities(batch.data, libm)
        vocab = model.vocab
        pairs = np.asarray(vocab.pairs, dtype=np.intp).reshape(-1, 2)
        self._left_of_pair, self._right_of_pair = (np.ascontiguousarray(x) for x in pairs.T)
        self._tilt = np.where(model.unmatched, np.exp(-tilt), 1.0)  # per pair of the table
        self.builder = LatticeBuilder(model.channel) if slots is None else slots.builder
        self.weights = self.builder.arc_weights() if slots is None else slots.weights
        self._slots = slots
        self._closure_id = len(vocab.punctemes)  # the closure's place in every slot's stack
        settings = model.settings
        self._keep, self._backoff = 1.0 - settings.backoff, \
            settings.backoff * (1 - settings.continuation) ** 2
        self._last_choices: tuple[int, _Choices] | None = None
        self._layout_cache: _Layout | None = None

    @property
    def slots(self) -> SlotCache:
        if self._slots is None:
            self._slots = SlotCache(self.model, self.builder, self.weights)
        return self._slots

    def tree(self, s: int, maximum: bool = False) -> tuple[MatrixTree, list[np.ndarray]]:
        """Sentence ``s`` as a matrix tree, and each node's candidate labels (flat Attach rows,
        :data:`BACKOFF` for the backoff). Every node's left and right matrices are the whole
        stacks of its two slots; candidates whose matrix is 0 there are left out."""
        from ..dp.treedp import Candidates, MatrixTree
        sent, surface = self.batch.sentences[s], self.batch.surfaces[s]
        choices = self._choices(s, maximum)
        slots = self._slots_in(maximum, surface, choices.needed, choices.found)
        nodes = [Candidates(w, slots[i].stack, slots[k].stack, l, r)
                 for (i, k), (w, l, r, _) in zip(choices.spans, choices.candidates)]
        prefix = slots[0].lattice.matrix((self.slots.boundary,))
        tree = MatrixTree(sent.heads, [slot.lattice.start for slot in slots],
                          [slot.lattice.final for slot in slots], prefix, nodes)
        return tree, [labels for *_, labels in choices.candidates]

    def _choices(self, s: int, maximum: bool) -> _Choices:
        """The candidates of sentence ``s``'s nodes, which are the same in both semirings (a
        product of nonnegative matrices is 0 in both or in neither): the last sentence's are
        kept, so that its Viterbi and its log p build them once."""
        if self._last_choices is not None and self._last_choices[0] == s:
            return self._last_choices[1]
        spans = _node_spans(self.batch.sentences[s])
        flat, needed, found = self._candidates(self.batch.nodes(s), self.batch.surfaces[s],
                                               np.array(spans), maximum)
        choices = _Choices(spans, flat.per_node(), needed, found)
        self._last_choices = (s, choices)
        return choices

    def _candidates(self, nodes: range, surfaces: Sequence[tuple[str, ...]], ends: np.ndarray,
                    maximum: bool, uses: Sequence[int | None] | None = None
                    ) -> tuple[_Flat, list[np.ndarray | None], _Found]:
        """The candidates of the batch's ``nodes`` over the slots of ``surfaces``: node t's rows
        whose left puncteme is possible in slot ``ends[t, 0]`` and whose right one in slot
        ``ends[t, 1]``, then the backoff (the closure on both sides); the punctemes each
        slot needs (None: all, unless the slot cache builds only those asked for); and the
        slots looked up (in the max semiring if ``maximum``)."""
        needed: list[np.ndarray | None] = [None] * len(surfaces)
        uses = [None] * len(surfaces) if uses is None else uses
        if self.slots.subset:  # per slot, the sides of the candidate sets of its nodes
            group, left_of_group, right_of_group = self._sides
            meets = np.zeros((2, len(surfaces), len(left_of_group)))  # 0/1: BLAS products
            group = group[nodes.start:nodes.stop]
            meets[0, ends[:, 0], group] = meets[1, ends[:, 1], group] = 1.0
            needed = list(meets[0] @ left_of_group + meets[1] @ right_of_group > 0.0)
        found = _Found(maximum, [self.slots.get(x, maximum, need, use)
                                 for x, need, use in zip(surfaces, needed, uses)], uses)
        return self._candidate_arrays(nodes, ends, found.slots), needed, found

    def _candidate_arrays(self, nodes: range, ends: np.ndarray, slots: Sequence[Slot]) -> _Flat:
        """The candidates of the batch's ``nodes`` (see :meth:`_candidates`) over the slots
        ``slots`` (``ends`` index them), in one compiled pass
        (:meth:`_candidate_arrays_reference`'s arrays)."""
        data = self.batch.data
        possible = np.array([slot.possible for slot in slots], dtype=np.uint8).reshape(
            len(slots), len(self.model.vocab.punctemes))
        return _Flat(*candidate_arrays(
            np.asarray(data.node_offsets[nodes.start:nodes.stop + 1], dtype=np.intp),
            np.asarray(data.pairs, dtype=np.int32), self._left_of_pair, self._right_of_pair,
            np.ascontiguousarray(ends, dtype=np.intp), possible, self.probs, self._tilt,
            self._keep, self._backoff, self._closure_id, BACKOFF))

    def _candidate_arrays_reference(self, nodes: range, ends: np.ndarray,
                                    slots: Sequence[Slot]) -> _Flat:
        """:meth:`_candidate_arrays` by numpy passes over the rows (the tests' oracle)."""
        data = self.batch.data
        lo = data.node_offsets[nodes.start]
        sizes = np.diff(data.node_offsets[nodes.start:nodes.stop + 1])
        pairs = data.pairs[lo:data.node_offsets[nodes.stop]]
        left, right = self._left_of_pair[pairs], self._right_of_pair[pairs]
        width = len(self.model.vocab.punctemes)  # (slot, puncteme) as one index
        at_left = np.repeat(ends[:, 0] * width, sizes) + left
        at_right = np.repeat(ends[:, 1] * width, sizes) + right
        flat = np.concatenate([slot.possible for slot in slots])
        ok = flat[at_left] & flat[at_right]
        rows = lo + np.flatnonzero(ok)
        kept = np.add.reduceat(ok, np.cumsum(sizes) - sizes, dtype=np.intp) if len(ok) else \
            np.zeros(len(sizes), dtype=np.intp)
        offsets = np.concatenate([[0], np.cumsum(kept + 1)])
        last = offsets[1:] - 1
        at = np.arange(len(rows)) + np.repeat(np.arange(len(kept)), kept)

        def spread(values: np.ndarray, backoff: float) -> np.ndarray:
            full = np.empty(len(values) + len(kept), dtype=values.dtype)
            full[at], full[last] = values, backoff
            return full

        closure = self._closure_id
        tilt = self._tilt[pairs[rows - lo]]
        return _Flat(offsets, spread(self._keep * self.probs[rows] * tilt, self._backoff),
                     spread(left[ok].astype(np.int32), closure),
                     spread(right[ok].astype(np.int32), closure), spread(rows, BACKOFF))

    def _slots_in(self, maximum: bool, surfaces: Sequence[tuple[str, ...]],
                  needed: Sequence[np.ndarray | None], found: _Found) -> list[Slot]:
        """The slots of ``surfaces`` in the max (``maximum``) or sum semiring: those the
        candidates were chosen over if they are of that semiring, else each looked up once."""
        if found.maximum == maximum:
            return found.slots
        return [self.slots.get(x, maximum, need, use)
                for x, need, use in zip(surfaces, needed, found.uses)]

    @cached_property
    def _sides(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each node's candidate set (its group in the batch's Attach data), and the punctemes
        on the left and on the right of each set's pairs (sets × V, 0 or 1: float, so that
        :meth:`_candidates` combines them by BLAS products, not numpy's boolean ones, ten
        times slower)."""
        data, width = self.batch.data, len(self.model.vocab.punctemes)
        group = np.zeros(data.n_nodes, dtype=np.intp)
        left, right = (np.zeros((len(data.groups), width)) for _ in range(2))
        for k, g in enumerate(data.groups):
            group[g.nodes] = k
            left[k, self._left_of_pair[g.candidates]] = 1.0
            right[k, self._right_of_pair[g.candidates]] = 1.0
        return group, left, right

    def log_prob(self, s: int) -> float:
        """log p(x | T) of sentence ``s`` (tilt included if the Inference has one), compiled."""
        return float(self.log_probs(range(s, s + 1))[0])

    def log_prob_reference(self, s: int) -> float:
        """:meth:`log_prob` by the numpy reference (the tests' oracle; it also names the error
        of a sentence the compiled pass rejects)."""
        from ..dp.treedp import inside
        tree, _ = self.tree(s)
        return inside(tree).log_total

    def forest(self, maximum: bool = False,
               part: range | None = None) -> tuple[Forest, _Flat, tuple[tuple[str, ...], ...]]:
        """The sentences ``part`` of the batch (default: all) as one
        :class:`~fstpunct.dp.forest.Forest` for the compiled tree DP, its candidates (as
        :meth:`tree` makes them, sentence after sentence) and the surface string of each of its
        slot vectors."""
        layout = self._layout(maximum, range(len(self.batch)) if part is None else part)
        kernel = [slot.kernel for slot in self._slots_in(maximum, layout.surfaces, layout.needed,
                                                         layout.found)]
        forest = replace(layout.forest, stacks=[stack for stack, _ in kernel],
                         vectors=[vectors for _, vectors in kernel])
        return forest, layout.candidates, layout.surfaces

    def _layout(self, maximum: bool, part: range) -> _Layout:
        """What :meth:`forest` gives in both semirings (its slots' candidates are the same in
        both), built once for the last range asked: the distinct surface strings and the forest
        without its stacks."""
        if self._layout_cache is not None and self._layout_cache.part == part:
            return self._layout_cache
        batch = self.batch
        sentences = batch.sentences[part.start:part.stop]
        slots = list(itertools.chain.from_iterable(batch.surfaces[part.start:part.stop]))
        index = {x: k for k, x in enumerate(dict.fromkeys(slots))}  # in order of first use
        slot_ids = np.fromiter(map(index.__getitem__, slots), dtype=np.intp, count=len(slots))
        words = np.array([sent.n for sent in sentences], dtype=np.intp)
        word_offsets = np.concatenate([[0], np.cumsum(words)]).astype(np.intp)
        node_offsets = np.asarray(batch.data.sentence_offsets[part.start:part.stop + 1],
                                  dtype=np.intp)
        nodes = range(int(node_offsets[0]), int(node_offsets[-1]))
        node_offsets = node_offsets - node_offsets[0]
        first_slot = word_offsets[:-1] + np.arange(len(words))
        spans = np.fromiter(itertools.chain.from_iterable(itertools.chain.from_iterable(
            map(_node_spans, sentences))), dtype=np.intp).reshape(-1, 2)
        ends = slot_ids[first_slot.repeat(np.diff(node_offsets))[:, None] + spans]
        uses = np.bincount(ends.ravel(), minlength=len(index)).tolist() if self.slots.chains \
            else None  # node sides meeting each string
        flat, needed, found = self._candidates(nodes, tuple(index), ends, maximum, uses)
        heads = np.fromiter(itertools.chain.from_iterable(sent.heads for sent in sentences),
                            dtype=np.intp, count=int(word_offsets[-1]))
        forest = Forest(word_offsets, node_offsets, heads, slot_ids, ends[:, 0].copy(),
                        ends[:, 1].copy(), np.asarray(flat.offsets, dtype=np.intp), flat.weights,
                        *(np.asarray(x, dtype=np.int32) for x in (flat.left_of, flat.right_of)),
                        [], [])
        self._layout_cache = _Layout(part, tuple(index), forest, flat, needed, found)
        return self._layout_cache

    def log_probs(self, part: range | None = None) -> np.ndarray:
        """log p(x | T) of every sentence of ``part`` (default: the batch) by the compiled tree
        DP (as :meth:`log_prob_reference`, up to the order of additions)."""
        part = range(len(self.batch)) if part is None else part
        forest, _, _ = self.forest(False, part)
        return forest_log_partition(forest, lambda s: self.log_prob_reference(part.start + s))

    def _compiled_outside(self, part: range) -> tuple[Outside, Forest, _Flat]:
        forest, flat, _ = self.forest(False, part)
        return (forest_outside(forest, lambda s: self.log_prob_reference(part.start + s)), forest,
                flat)

    def posteriors(self, s: int) -> Posteriors:
        """log Z of sentence ``s`` and the posterior of every Attach row of its nodes (compiled,
        as :meth:`posteriors_reference`)."""
        return self.posteriors_all(range(s, s + 1))[0]

    def posteriors_all(self, part: range | None = None) -> list[Posteriors]:
        """:meth:`posteriors` of every sentence of ``part`` (default: all), by the compiled
        outside pass."""
        out, forest, flat = self._compiled_outside(
            range(len(self.batch)) if part is None else part)
        post = flat.weights * out.weights
        keep = flat.labels != BACKOFF
        bounds = flat.offsets[forest.node_offsets].tolist()
        return [Posteriors(float(z), flat.labels[a:b][keep[a:b]], post[a:b][keep[a:b]])
                for z, a, b in zip(out.log_z.tolist(), bounds, bounds[1:])]

    def expected_counts(self, part: range | None = None) -> Expectations:
        """Σ log Z, the pair posteriors of every Attach row and the expected channel-arc counts
        over the sentences ``part`` (default: all), by the compiled outside pass (as
        :meth:`expectations` summed over them, up to the order of additions)."""
        part = range(len(self.batch)) if part is None else part
        out, forest, flat = self._compiled_outside(part)
        post = flat.weights * out.weights
        keep = flat.labels != BACKOFF
        return Expectations(sum(out.log_z.tolist()), flat.labels[keep], post[keep],
                            self._arc_counts(out, forest, self._layout(False, part)))

    def _arc_counts(self, out: Outside, forest: Forest, layout: _Layout) -> np.ndarray:
        """Expected channel-arc counts from a compiled outside pass over ``layout``'s forest,
        one batched edit count per distinct surface string (the terms and slot adjoints of its
        slots together)."""
        surfaces = layout.surfaces
        terms, counts = out.terms, np.zeros(len(self.weights))
        of_term = forest.slot_vectors[terms.slot]
        order = np.argsort(of_term, kind="stable")
        term_bounds = np.searchsorted(of_term[order], np.arange(len(surfaces) + 1))
        slots = np.argsort(forest.slot_vectors, kind="stable")
        slot_bounds = np.searchsorted(forest.slot_vectors[slots], np.arange(len(surfaces) + 1))
        width = len(self.model.vocab.punctemes) + 1  # every stack: M(l) for l in V, then K
        found = self._slots_in(False, surfaces, layout.needed, layout.found)
        for u, (x, slot, need) in enumerate(zip(surfaces, found, layout.needed)):
            if not x:  # no tokens: no edits
                continue
            rows = order[term_bounds[u]:term_bounds[u + 1]]
            occurrences = out.slot_at[slots[slot_bounds[u]:slot_bounds[u + 1]]
                                      - out.first_slot]
            n = slot.lattice.size
            span = occurrences[:, None] + np.arange(n)
            d_start, d_final = out.start[span].sum(axis=0), out.final[span].sum(axis=0)
            prefix = None
            if x[0] == BOUNDARY:  # only in slot 0, where start holds ∂log Z/∂(λ₀ᵀ prefix)
                lat = slot.lattice
                prefix = np.outer(lat.start, d_start)
                d_start = lat.matrix((self.slots.boundary,)) @ d_start
            vec = terms.vec[terms.vec_at[rows][:, None] + np.arange(2 * n)]
            coef = np.zeros((len(rows), width))
            sizes = terms.coef_at[rows + 1] - terms.coef_at[rows]
            entries = ranges(terms.coef_at[rows], sizes)
            coef[np.repeat(np.arange(len(rows)), sizes), terms.matrix[entries]] = \
                terms.coef[entries]
            counts += self.slots.counter(x, need).term_counts(coef, vec[:, :n], vec[:, n:],
                                                              d_start, d_final, prefix)
        return counts

    def posteriors_reference(self, s: int) -> Posteriors:
        """:meth:`posteriors` by the numpy reference (what the tests compare with)."""
        return self._outside(s)[0]

    def expectations(self, s: int) -> Expectations:
        """log Z, pair posteriors and expected channel-arc counts of sentence ``s`` (the numpy
        reference, one sentence: see :meth:`expected_counts`)."""
        posteriors, grads = self._outside(s)
        surface, needed = self.batch.surfaces[s], self._choices(s, False).needed
        terms: list[list[Outer]] = [[] for _ in surface]
        for (i, k), gl, gr in zip(_node_spans(self.batch.sentences[s]), grads.left_outer,
                                  grads.right_outer):
            terms[i].append(gl)
            terms[k].append(gr)
        counts = np.zeros(len(self.weights))
        for i, (x, need) in enumerate(zip(surface, needed)):
            if x:  # no tokens: no edits
                counts += self.slots.counter(x, need).counts(terms[i], grads.start[i],
                                                             grads.final[i],
                                                             grads.prefix if i == 0 else None)
        return Expectations(posteriors.log_z, posteriors.rows, posteriors.posterior, counts)

    def _outside(self, s: int) -> tuple[Posteriors, Gradients]:
        """The inside and outside passes over sentence ``s``: its posteriors, and the gradients
        of log Z."""
        from ..dp.treedp import inside, outside
        tree, labels = self.tree(s)
        grads = outside(tree, inside(tree))
        rows = [lab[:-1] for lab in labels]
        post = [(cand.weights * gw)[:-1] for cand, gw in zip(tree.nodes, grads.weights)]
        return Posteriors(grads.log_z, np.concatenate(rows), np.concatenate(post)), grads

    def _pairs_of(self, labels: list[np.ndarray],
                  choice: Sequence[int]) -> list[tuple[Puncteme, Puncteme] | None]:
        vocab = self.model.vocab
        out: list[tuple[Puncteme, Puncteme] | None] = []
        for lab, j in zip(labels, choice):
            row = lab[j]
            out.append(None if row == BACKOFF else vocab.pair_strings(self.batch.data.pairs[row]))
        return out

    def viterbi(self, s: int) -> tuple[list[tuple[Puncteme, Puncteme] | None], float]:
        """The best T′ jointly with the channel's edit paths: a (l, r) pair per node (None where
        the backoff wins), and its log score (compiled; exactly :meth:`viterbi_reference`)."""
        best, scores = self._viterbi(range(s, s + 1))
        return best[0], float(scores[0])

    def viterbi_reference(self, s: int) -> tuple[list[tuple[Puncteme, Puncteme] | None], float]:
        """:meth:`viterbi` by the numpy reference (what the tests compare with)."""
        from ..dp.treedp import viterbi
        tree, labels = self.tree(s, maximum=True)
        choice, score = viterbi(tree)
        return self._pairs_of(labels, choice), score

    def viterbi_all(self) -> list[list[tuple[Puncteme, Puncteme] | None]]:
        """:meth:`viterbi`'s T′ of every sentence of the batch, by the compiled tree DP."""
        return self._viterbi(range(len(self.batch)))[0]

    def viterbi_and_log_probs(self, part: range | None = None
                              ) -> tuple[list[list[tuple[Puncteme, Puncteme] | None]], np.ndarray]:
        """:meth:`viterbi_all`'s T′ and :meth:`log_probs` of the sentences ``part`` (default:
        all) in one compiled traversal (the same values; what decoding runs)."""
        part = range(len(self.batch)) if part is None else part
        best, flat, _ = self.forest(True, part)
        forest, _, _ = self.forest(False, part)
        choice, _, log_z = forest_viterbi_and_log_partition(
            forest, best, lambda s: self.log_prob_reference(part.start + s),
            lambda s: self.viterbi_reference(part.start + s))
        return self._best_pairs(flat, best, choice), log_z

    def _viterbi(self, part: range) -> tuple[list[list[tuple[Puncteme, Puncteme] | None]],
                                             np.ndarray]:
        forest, flat, _ = self.forest(True, part)
        choice, scores = forest_viterbi(forest,
                                        lambda s: self.viterbi_reference(part.start + s))
        return self._best_pairs(flat, forest, choice), scores

    def _best_pairs(self, flat: _Flat, forest: Forest,
                    choice: np.ndarray) -> list[list[tuple[Puncteme, Puncteme] | None]]:
        """The (l, r) pairs of every node's chosen candidate, per sentence of the forest."""
        best = self._pairs_of_choice(flat, flat.offsets[:-1] + choice)
        offsets = forest.node_offsets.tolist()
        return [best[a:b] for a, b in zip(offsets, offsets[1:])]

    def _pairs_of_choice(self, flat: _Flat,
                         chosen: np.ndarray) -> list[tuple[Puncteme, Puncteme] | None]:
        """The (l, r) pair of each chosen flat candidate (None: the backoff)."""
        labels = flat.labels[chosen]
        pair = np.where(labels == BACKOFF, -1, self.batch.data.pairs[labels]).tolist()
        strings = self.model.pair_strings
        return [None if p < 0 else strings[p] for p in pair]

    def sample(self, s: int, rng: np.random.Generator,
               size: int) -> list[list[tuple[Puncteme, Puncteme] | None]]:
        """Exact samples of T′ from p(T′ | T, x) for sentence ``s`` (compiled forward filtering,
        backward sampling: the draws of :meth:`sample_reference` from the same generator)."""
        return self.sample_all(rng, size, range(s, s + 1))[0]

    def sample_each(self, size: int, streams: Sequence[Sequence[int]]
                    ) -> list[list[list[tuple[Puncteme, Puncteme] | None]]]:
        """``size`` exact samples of T′ for every sentence of the batch, sentence k from its own
        random stream ``streams[k]`` (a numpy SeedSequence entropy, the caller's scheme), so
        that a sentence's samples do not depend on the other sentences of the batch:
        ``[sentence][draw][node]``; InputError unless ``size`` ≥ 1."""
        refuse_count(1, **{"the draws of T′": size})
        if len(streams) != len(self.batch):
            raise ValueError(f"{len(streams)} random streams for {len(self.batch)} sentences")
        forest, flat, _ = self.forest(False)  # the batch's layout, built once for every stream
        first = flat.offsets[:-1]
        nodes = forest.node_offsets.tolist()
        out = []
        for k, stream in enumerate(streams):
            choice = forest_sample(forest, np.random.default_rng(stream), size,
                                   self.log_prob_reference, range(k, k + 1))
            out.append([self._pairs_of_choice(flat, first[nodes[k]:nodes[k + 1]] + row)
                        for row in choice])
        return out

    def sample_all(self, rng: np.random.Generator, size: int, part: range | None = None
                   ) -> list[list[list[tuple[Puncteme, Puncteme] | None]]]:
        """``size`` exact samples of T′ for every sentence of ``part`` (default: all), sentence
        after sentence from ``rng``, by the compiled sampler: ``[sentence][draw][node]``."""
        part = range(len(self.batch)) if part is None else part
        forest, flat, _ = self.forest(False, part)
        choice = forest_sample(forest, rng, size,
                               lambda s: self.log_prob_reference(part.start + s))
        first = flat.offsets[:-1]
        offsets = forest.node_offsets.tolist()
        draws = [self._pairs_of_choice(flat, first + row) for row in choice]
        return [[d[a:b] for d in draws] for a, b in zip(offsets, offsets[1:])]

    def sample_reference(self, s: int, rng: np.random.Generator,
                         size: int) -> list[list[tuple[Puncteme, Puncteme] | None]]:
        """:meth:`sample` by the numpy reference (what the tests compare with)."""
        from ..dp.treedp import sample
        tree, labels = self.tree(s)
        return [self._pairs_of(labels, c) for c in sample(tree, rng, size)]


def log_probs(model: PunctModel, sentences: Sequence[SlotSentence]) -> np.ndarray:
    """log p(x | T) of every sentence under ``model`` (the compiled tree DP, in batches of
    CHUNK sentences, sharing one :class:`SlotCache`: a surface string's slots are built once)."""
    cache = SlotCache(model)
    return np.concatenate([np.zeros(0)] + [
        Inference(model, model.prepare(b), slots=cache).log_probs()
        for b in batches(sentences, CHUNK)])


def _node_spans(sent: SlotSentence) -> list[tuple[int, int]]:
    """Slot span of every node; the pseudo node of a sentence without words spans slot 0..0."""
    return sent.spans if sent.n else [(0, 0)]
