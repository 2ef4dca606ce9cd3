"""The sliding-window channel (DESIGN §3): brute-force enumeration against the OpenFst machine,
normalisation, no insertions, structural zeros, right-to-left semantics, files."""
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pynini
import pytest
import pywrapfst
from hypothesis import given, settings
from hypothesis import strategies as st

from fstpunct.errors import ModelError
from fstpunct.fst.channel import (
    END,
    KEEP,
    LEFT,
    RIGHT,
    SPECIALS,
    SWAP,
    Channel,
    sidecar_path,
    structural_mask,
)
from fstpunct.fst.fstbinary import read_arcs
from fstpunct.ud.slots import BOUNDARY

MARKS = (",", ".", "”")


def fst_prob(channel: Channel, u, x) -> float:
    """p(x | u) by composing acceptors with the channel FST (log-semiring total weight)."""
    lattice = pynini.compose(pynini.compose(channel.input_acceptor(u), channel.fst()),
                             channel.output_acceptor(x))
    if lattice.start() == pynini.NO_STATE_ID:
        return 0.0
    return math.exp(-float(pynini.shortestdistance(lattice, reverse=True)[lattice.start()]))


def total_prob(channel: Channel, u) -> float:
    """Σ_x p(x | u) from the FST alone."""
    lattice = pynini.compose(channel.input_acceptor(u), channel.fst())
    return math.exp(-float(pynini.shortestdistance(lattice, reverse=True)[lattice.start()]))


@st.composite
def cases(draw):
    marks = MARKS[:draw(st.integers(1, len(MARKS)))]
    symbols = SPECIALS + marks
    direction = draw(st.sampled_from(("ltr", "rtl")))
    channel = Channel.random(symbols, direction, np.random.default_rng(draw(st.integers(0, 2**32))))
    body = draw(st.lists(st.sampled_from(symbols[1:]), max_size=4))
    u = ([BOUNDARY] if draw(st.booleans()) else []) + body
    return channel, tuple(u)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_brute_force_equals_fst(case):
    channel, u = case
    dist = channel.distribution(u)
    assert math.isclose(sum(dist.values()), 1.0, rel_tol=1e-9)
    assert math.isclose(total_prob(channel, u), 1.0, rel_tol=1e-5)
    for x, p in dist.items():
        assert math.isclose(fst_prob(channel, u, x), p, rel_tol=1e-4, abs_tol=1e-7)
        assert math.isclose(channel.prob(u, x), p)
        assert (x == ()) == (u == ())                          # x = ε ⇔ u = ε
        assert not Counter(x) - Counter(u)                     # no insertions
    impossible = tuple(u) + (",",)                             # longer than u: never produced
    assert channel.prob(u, impossible) == 0.0 == fst_prob(channel, u, impossible)


@settings(max_examples=30, deadline=None)
@given(cases())
def test_save_load_round_trip(tmp_path_factory, case):
    channel, _ = case
    path = tmp_path_factory.mktemp("ch") / "c.fst"
    channel.save(path)
    loaded = Channel.load(path, channel.direction)
    assert loaded.symbols == channel.symbols and loaded.direction == channel.direction
    np.testing.assert_allclose(loaded.phi, channel.phi, rtol=1e-12, atol=1e-15)
    assert loaded.arcs() == channel.arcs()


def best_alignments(channel: Channel, u) -> dict:
    """Brute force: every edit sequence over u, in natural positions; for each output x the
    highest path probability and the set of position tuples of the paths reaching it."""
    scan = list(range(len(u)))[::-1] if channel.direction == "rtl" else list(range(len(u)))
    paths = [((), scan[0], 1.0)]
    for t in scan[1:]:
        paths = [(out + emitted, new, p * q) for out, pending, p in paths
                 for _, q, emitted, new in channel._steps(pending, t,
                                                          lambda k: channel.index(u[k]))]
    best: dict = {}
    for out, pending, p in paths:
        positions = out + (pending,)
        positions = positions[::-1] if channel.direction == "rtl" else positions
        x = tuple(u[k] for k in positions)
        top, tied = best.get(x, (0.0, set()))
        if p > top * (1 + 1e-12):
            best[x] = (p, {positions})
        elif p >= top * (1 - 1e-12):
            tied.add(positions)
    return best


@settings(max_examples=60, deadline=None)
@given(cases())
def test_align_is_the_best_path(case):
    channel, u = case
    if not u:
        assert channel.align(u, ()) == () and channel.align(u, (",",)) is None
        return
    best = best_alignments(channel, u)
    for x, (p, positions) in best.items():
        assert channel.align(u, x) in positions
        path = channel.best_path(u, x)  # its probability and edits are those of the best path
        assert path.prob == pytest.approx(p, rel=1e-9)
        assert np.prod([s.p for s in path.steps]) == pytest.approx(p, rel=1e-9)
        assert len(path.steps) == len(u) - 1
        assert all(s.a < s.b and s.p == channel.phi[channel.index(u[s.a]), channel.index(u[s.b]),
                                                     s.edit] for s in path.steps)
    assert channel.align(u, tuple(u) + (",",)) is None


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
def test_align_a_doubled_comma_keeps_the_second(direction):
    # for a window a a only KEEP and LEFT (a absorbed) are free: the survivor is the later one
    channel = Channel.random(SPECIALS + MARKS, direction, np.random.default_rng(0))
    assert channel.align((",", ","), (",",)) == (1,)
    assert channel.align((",", ","), (",", ",")) == (0, 1)
    assert channel.align((",", "."), (".", ",")) == (1, 0)


def test_sample_matches_distribution():
    channel = Channel.random(SPECIALS + MARKS, "rtl", np.random.default_rng(3))
    u = (BOUNDARY, ",", "”", ".")
    dist = channel.distribution(u)
    rng = np.random.default_rng(4)
    counts = Counter(channel.sample(u, rng) for _ in range(4000))
    assert set(counts) <= set(dist)
    for x, p in dist.items():
        assert abs(counts[x] / 4000 - p) < 0.03
    assert channel.sample((), rng) == ()


def with_edits(direction: str, edits: dict) -> Channel:
    """The identity channel over SPECIALS + MARKS + ’, except the given windows' edits."""
    channel = Channel.identity(SPECIALS + MARKS + ("’",), direction)
    phi = channel.phi.copy()
    for (a, b), e in edits.items():
        phi[channel.index(a), channel.index(b)] = np.eye(4)[e]
    return Channel(channel.symbols, direction, phi)


def test_rtl_moves_a_period_past_two_quotes():
    transpose = {("”", "."): SWAP, ("’", "."): SWAP}
    u = ("’", "”", ".")
    assert with_edits("rtl", transpose).distribution(u) == {(".", "’", "”"): 1.0}
    assert with_edits("ltr", transpose).distribution(u) == {("’", ".", "”"): 1.0}


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
def test_edits_mean_the_same_in_both_directions(direction):
    for edit, x in ((KEEP, (",", ".")), (LEFT, (".",)), (RIGHT, (",",)), (SWAP, (".", ","))):
        channel = with_edits(direction, {(",", "."): edit})
        assert channel.distribution((",", ".")) == {x: 1.0}
        assert fst_prob(channel, (",", "."), x) == pytest.approx(1.0)


def test_identity_and_structural_zeros():
    channel = Channel.identity(SPECIALS + MARKS, "ltr")
    assert channel.distribution((BOUNDARY, ",", ".")) == {(BOUNDARY, ",", "."): 1.0}
    mask = structural_mask(channel.symbols)
    o, c = channel.index(BOUNDARY), channel.index(",")
    assert list(mask[o, c]) == [True, False, True, False]      # ∘ absorbs, is never absorbed
    assert list(mask[c, o]) == [True, False, False, False]     # nothing precedes ∘
    assert list(mask[c, c]) == [True, True, False, False]      # , , : RIGHT ≡ LEFT, SWAP ≡ KEEP
    bad = channel.phi.copy()
    bad[o, c] = [0.5, 0.5, 0, 0]
    with pytest.raises(ModelError, match="structurally impossible"):
        Channel(channel.symbols, "ltr", bad)
    with pytest.raises(ModelError, match="sum to 1"):
        Channel(channel.symbols, "ltr", channel.phi * 0.5)
    with pytest.raises(ModelError, match="lack"):
        Channel.identity(MARKS, "ltr")
    with pytest.raises(ModelError, match=r"\$"):
        Channel.identity(SPECIALS + (END,), "ltr")


def test_arcs_table():
    channel = Channel.random(SPECIALS + MARKS, "rtl", np.random.default_rng(0))
    arcs = channel.arcs()
    params = [a.param for a in arcs if a.param is not None]
    assert len(params) == len(set(params)) == int(np.count_nonzero(channel.phi))
    assert sum(a.src == 0 for a in arcs) == len(channel.symbols) + 1
    assert {a.dst for a in arcs if a.ilabel == END} == {1}
    keys = [(a.src, a.dst, a.ilabel, a.olabel) for a in arcs]
    assert len(keys) == len(set(keys))                          # every arc identifiable


def test_load_errors(tmp_path):
    with pytest.raises(ModelError, match="cannot read"):
        Channel.load(tmp_path / "missing.fst", "ltr")
    path = tmp_path / "c.fst"
    Channel.identity(SPECIALS, "ltr").save(path)
    with pytest.raises(ModelError, match=str(sidecar_path(path).name)):
        Channel.load(path)
    sidecar_path(path).write_text('{"direction": "rtl"}', encoding="utf-8")
    assert Channel.load(path).direction == "rtl"


def pynini_phi(path, direction) -> np.ndarray:
    """phi of a channel file read by pynini (weights exactly, from its serialization), each
    arc's edit looked up among every arc Channel.arcs could make (how Channel.load read files
    before it parsed them itself)."""
    f = pynini.Fst.read(str(path))
    table = f.input_symbols()
    names = [table.find(k) for k in range(table.num_symbols())]
    shell = Channel.identity(names[2:], direction)
    full = shell.mask / shell.mask.sum(axis=2, keepdims=True)
    param = {(a.src, a.dst, a.ilabel, a.olabel): a.param
             for a in Channel(shell.symbols, direction, full).arcs()}
    phi = np.zeros_like(shell.phi)
    arcs = read_arcs(f)
    for s, t, i, o, w in zip(*(x.tolist() for x in (arcs.src, arcs.dst, arcs.ilabel,
                                                    arcs.olabel, arcs.weight))):
        key = (s, t, names[i], names[o] if o else None)
        if param[key] is not None:
            phi[param[key]] += math.exp(-w)
    return phi / phi.sum(axis=2, keepdims=True)


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
def test_load_reads_phi_bitwise_as_pynini_does(tmp_path, direction):
    rng = np.random.default_rng(11)
    channel = Channel.random(SPECIALS + MARKS, direction, rng)
    phi = channel.phi * (rng.random(channel.phi.shape) < 0.6)  # some edits without an arc
    phi[..., KEEP] += channel.mask[..., KEEP] * (phi.sum(axis=2) == 0)
    channel = Channel(channel.symbols, direction, phi / phi.sum(axis=2, keepdims=True))
    path = tmp_path / "c.fst"
    channel.save(path)
    loaded = Channel.load(path, direction)
    assert loaded.symbols == channel.symbols and loaded.arcs() == channel.arcs()
    np.testing.assert_array_equal(loaded.phi.view(np.uint64),
                                  pynini_phi(path, direction).view(np.uint64))
    const = tmp_path / "const.fst"  # another kind of machine: converted by pynini
    pywrapfst.convert(pywrapfst.Fst.read(str(path)), "const").write(str(const))
    np.testing.assert_array_equal(Channel.load(const, direction).phi, loaded.phi)


def test_another_kind_of_machine_is_converted_from_the_bytes_read(tmp_path, monkeypatch):
    """A machine of another kind than vector (const), which pynini converts, was read from its
    path a second time, after the bytes checked against the sidecar's digest: a file replaced
    in between loaded unchecked. It is converted from the bytes read once: here the file is
    gone as soon as they are."""
    vector, const = tmp_path / "c.fst", tmp_path / "const.fst"
    Channel.random(SPECIALS + MARKS, "ltr", np.random.default_rng(3)).save(vector)
    pywrapfst.convert(pywrapfst.Fst.read(str(vector)), "const").write(str(const))
    read_bytes = Path.read_bytes

    def read_once(self):
        data = read_bytes(self)
        self.unlink()
        return data

    monkeypatch.setattr(Path, "read_bytes", read_once)
    loaded = Channel.load(const, "ltr")
    monkeypatch.undo()
    assert not const.exists()
    np.testing.assert_array_equal(loaded.phi, Channel.load(vector, "ltr").phi)


@pytest.mark.parametrize("lang", ["en", "ar", "zh"])
def test_bundled_channels_load_as_through_pynini(lang):
    from fstpunct.model.store import BUNDLED

    path = BUNDLED / lang / "channel.fst"
    loaded = Channel.load(path)
    np.testing.assert_array_equal(loaded.phi.view(np.uint64),
                                  pynini_phi(path, loaded.direction).view(np.uint64))


def test_load_refuses_malformed_machines(tmp_path):
    path = tmp_path / "c.fst"
    channel = Channel.identity(SPECIALS + MARKS, "ltr")
    channel.save(path)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) - 7])  # cut short
    with pytest.raises(ModelError, match="cannot read an OpenFst channel: malformed"):
        Channel.load(path, "ltr")
    fst = channel.fst("log64")  # an arc no channel has: 0 –,:,→ q_,
    comma = 2 + channel.index(",")
    fst.add_arc(0, pynini.Arc(comma, comma, pynini.Weight.one("log64"), comma))
    fst.write(str(path))
    with pytest.raises(ModelError, match=r"arc \(0, \d+, ',', ','\) is not a channel arc"):
        Channel.load(path, "ltr")


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
def test_file_arcs_looked_up_as_arcs_makes_them(direction):
    """Each arc of a file (states and labels, some made at random) is identified with the edit
    of the same arc among every arc :meth:`Channel.arcs` could make, or refused if none."""
    from fstpunct.fst.channel import _edits
    from fstpunct.fst.fstbinary import FstArcs

    shell = Channel.identity(SPECIALS + MARKS, direction)
    n = len(shell.symbols)
    full = Channel(shell.symbols, direction, shell.mask / shell.mask.sum(axis=2, keepdims=True))
    label = {None: 0, END: 1, **{s: 2 + k for k, s in enumerate(shell.symbols)}}
    param = {(a.src, a.dst, label[a.ilabel], label[a.olabel]): a.param for a in full.arcs()}
    rng = np.random.default_rng(5)
    real = list(param)
    keys = [real[k] for k in rng.choice(len(real), 300)] + \
        [tuple(int(x) for x in rng.integers(-1, n + 3, 4)) for _ in range(300)]
    src, dst, ilabel, olabel = (np.array(x) for x in zip(*keys))
    a, b, e, bad = _edits(shell, FstArcs(0, n + 2, src, dst, ilabel, olabel, np.zeros(len(keys))))
    assert set(bad.tolist()) == {k for k, key in enumerate(keys) if key not in param}
    for k, key in enumerate(keys):
        if param.get(key) is not None:
            assert (a[k], b[k], e[k]) == param[key]
        else:
            assert e[k] == -1
