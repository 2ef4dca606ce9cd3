"""The compiled composition of the scan machine with a slot string's acceptor numbers and orders
states and arcs exactly as OpenFst's ``compose(..., connect=True)`` does (the reference below
is how lattice topologies were built with pynini), on random channels and bundled models, with
and without hidden symbols, in both directions."""
import numpy as np
import pynini
import pytest

from fstpunct.api import load
from fstpunct.errors import FstpunctError
from fstpunct.fst.channel import KEEP, SWAP, Channel
from fstpunct.fst.fstbinary import read_arcs
from fstpunct.fst.lattice import LatticeBuilder, Topology

SYMBOLS = ("∘", "<abbv>", "<unk>", ",", ".", "”", "“", "!")


def openfst_topology(builder: LatticeBuilder, surface: tuple[str, ...]) -> Topology:
    """The topology of ``surface`` by OpenFst composition (the reference)."""
    arcs, symbols = builder.channel_arcs, {s: k for k, s in enumerate(builder.channel.symbols)}
    machine = pynini.Fst(arc_type="log")
    for _ in range(1 + max(max(a.src, a.dst) for a in arcs)):
        machine.add_state()
    machine.set_start(0)
    machine.set_final(1)
    one = pynini.Weight.one("log")
    for k, a in enumerate(arcs):
        out = 0 if a.olabel is None else 1 + symbols[a.olabel]
        machine.add_arc(a.src, pynini.Arc(1 + k, out, one, a.dst))
    machine.arcsort("olabel")
    reverse = builder.channel.direction == "rtl"
    scan = surface[::-1] if reverse else surface
    acceptor = pynini.Fst(arc_type="log")
    acceptor.add_states(len(scan) + 1)
    acceptor.set_start(0)
    acceptor.set_final(len(scan))
    for k, tok in enumerate(scan):
        label = 1 + symbols[tok]
        acceptor.add_arc(k, pynini.Arc(label, label, one, k + 1))
    for tok in sorted(builder.hidden):
        label = 1 + symbols[tok]
        for k in range(len(scan) + 1):
            acceptor.add_arc(k, pynini.Arc(label, label, one, k))
    lattice = pynini.compose(machine, acceptor, connect=True)
    if lattice.start() < 0:
        raise FstpunctError("cannot produce")
    read = read_arcs(lattice)
    index, token = read.ilabel - 1, np.array([-1 if arcs[a].ilabel == "$" else
                                              symbols[arcs[a].ilabel] for a in read.ilabel - 1],
                                             dtype=np.intp)
    used = np.zeros(lattice.num_states(), dtype=bool)
    used[read.src] = used[read.dst[token >= 0]] = True
    used[lattice.start()] = True
    keep = np.flatnonzero(used)
    new = np.full(lattice.num_states(), -1)
    new[keep] = np.arange(len(keep))
    return Topology(len(keep), int(new[lattice.start()]), new[read.src], new[read.dst], index,
                    token, reverse)


def assert_same(builder: LatticeBuilder, surface: tuple[str, ...]) -> None:
    try:
        want = openfst_topology(builder, surface)
    except FstpunctError:
        with pytest.raises(FstpunctError, match="cannot produce"):
            builder.topology(surface)
        return
    got = builder.topology(surface)
    assert (got.n_states, got.start, got.reverse) == (want.n_states, want.start, want.reverse)
    for name in ("src", "dst", "arc", "token"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)


def _strings(symbols, rng, count):
    return [tuple(rng.choice(symbols, rng.integers(0, 5)).tolist()) for _ in range(count)]


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_channels_with_zero_edits(direction, seed):
    rng = np.random.default_rng(seed)
    channel = Channel.random(SYMBOLS, direction, rng)
    phi = channel.phi * (rng.random(channel.phi.shape) < 0.7)  # some edits impossible
    phi[..., 0] += channel.mask[..., 0] * (phi.sum(axis=2) == 0)  # every pair keeps a way out
    channel = Channel(SYMBOLS, direction, phi / phi.sum(axis=2, keepdims=True))
    hidden_sets = [frozenset(), frozenset({"<unk>"}), frozenset({"!", "<abbv>", ","})]
    for hidden in hidden_sets:
        builder = LatticeBuilder(channel, hidden)
        for surface in _strings(SYMBOLS, rng, 40) + [("!", "!"), (",", "!", ",")]:
            assert_same(builder, surface)


@pytest.mark.parametrize("lang", ["en", "ar", "zh"])
def test_bundled_channels(lang):
    channel = load(lang).punct.channel
    rng = np.random.default_rng(3)
    symbols = list(channel.symbols)
    for hidden in (frozenset(), frozenset({"<abbv>", "<unk>"}), frozenset(symbols[:3])):
        builder = LatticeBuilder(channel, hidden)
        for surface in _strings(symbols, rng, 12):
            assert_same(builder, surface)


def test_unknown_token_is_refused():
    builder = LatticeBuilder(Channel.random(SYMBOLS, "ltr", np.random.default_rng(0)))
    with pytest.raises(FstpunctError, match="not in the channel's alphabet"):
        builder.topology(("?",))


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
def test_string_the_channel_cannot_produce(direction):
    channel = Channel.random(SYMBOLS, direction, np.random.default_rng(5))
    bang = SYMBOLS.index("!")
    phi = channel.phi.copy()  # "!" is never emitted but last (by the machine's final arcs)
    first, second = (bang, slice(None)), (slice(None), bang)
    if direction == "rtl":
        first, second = second, first
    phi[first + (KEEP,)] = phi[second + (SWAP,)] = 0
    dead = phi.sum(axis=2) == 0  # pairs whose only edit was zeroed (∘ keeps its place)
    phi[dead] = channel.phi[dead]
    channel = Channel(SYMBOLS, direction, phi / phi.sum(axis=2, keepdims=True))
    builder = LatticeBuilder(channel)
    surface = ("!", ",") if direction == "ltr" else (",", "!")
    with pytest.raises(FstpunctError, match="cannot produce"):
        openfst_topology(builder, surface)
    assert_same(builder, surface)
    assert_same(builder, surface[::-1])


def test_without_final_refuses_arcs_out_of_range():
    """The compiled renumbering (checked against the reference's numpy one above) refuses
    arcs it would read out of bounds."""
    from fstpunct.fst import _compose
    one, tokens = np.zeros(1, dtype=np.intp), np.zeros(3, dtype=np.intp)
    with pytest.raises(ValueError, match="out of range"):
        _compose.without_final(1, one, one + 1, one, tokens)
    with pytest.raises(ValueError, match="out of range"):
        _compose.without_final(2, one, one, one + 3, tokens)
    with pytest.raises(ValueError, match="one length"):
        _compose.without_final(2, one, np.zeros(2, dtype=np.intp), one, tokens)
    assert _compose.without_final(0, *(np.zeros(0, dtype=np.intp) for _ in range(3)),
                                  tokens)[0] == 0
