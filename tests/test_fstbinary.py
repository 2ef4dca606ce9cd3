"""Arcs read from OpenFst's binary serialization equal pynini's arc iteration."""
from pathlib import Path

import numpy as np
import pynini
import pytest

from fstpunct.fst.fstbinary import read_arcs

MODEL = Path(__file__).parents[1] / "fstpunct" / "models" / "en" / "channel.fst"


def iterated(fst: pynini.Fst) -> list[tuple[int, int, int, int, float]]:
    return [(s, a.nextstate, a.ilabel, a.olabel, float(a.weight))
            for s in fst.states() for a in fst.arcs(s)]


@pytest.mark.parametrize("make", [
    lambda: pynini.accep("abc") | pynini.accep("xy", weight=0.5),  # tropical, float32
    lambda: pynini.cross("ab", "ba").optimize(),
    lambda: pynini.Fst.read(str(MODEL)),  # log64 weights, symbol tables
    lambda: pynini.Fst(),  # no states
])
def test_read_arcs_equals_iteration(make):
    fst = make()
    arcs = read_arcs(fst)
    got = list(zip(arcs.src.tolist(), arcs.dst.tolist(), arcs.ilabel.tolist(),
                   arcs.olabel.tolist(), arcs.weight.tolist()))
    expected = iterated(fst)
    assert [g[:4] for g in got] == [e[:4] for e in expected]
    np.testing.assert_allclose([g[4] for g in got], [e[4] for e in expected], rtol=1e-7)
    assert arcs.start == fst.start() and arcs.n_states == fst.num_states()


def test_wide_weights_are_exact():
    fst = pynini.Fst(arc_type="log64")
    fst.add_states(2)
    fst.set_start(0)
    fst.set_final(1)
    value = 1 / 3
    fst.add_arc(0, pynini.Arc(1, 1, pynini.Weight("log64", value), 1))
    assert read_arcs(fst).weight.tolist() == [value]
