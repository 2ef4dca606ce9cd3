"""The product of a CRF corrector and the correction model: each slot's candidates."""
import numpy as np

from fstpunct.apps.correction.combine import FLOOR, slot_candidates
from fstpunct.apps.restoration.exact import SlotDistribution

GEN = SlotDistribution(((), (",",)), ((), (2,)), np.array([0.2, 0.8]))
CRF = {(): 0.5, (",",): 0.25, (".",): 0.25}


def test_slot_candidates_floor_and_heads():
    strings, heads, logs = slot_candidates(CRF, GEN, 3)
    assert strings == [(), (",",), (".",)] and heads == [(), (2,), (3,)]
    assert np.allclose(np.exp(logs), [[0.5, 0.2], [0.25, 0.8], [0.25, FLOOR]])
