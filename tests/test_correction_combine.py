"""A CRF corrector and the correction model combined: each slot's candidates, agreement."""
import numpy as np

from fstpunct.apps.correction.combine import FLOOR, agreed, joint, slot_candidates
from fstpunct.apps.restoration.exact import SlotDistribution

GEN = SlotDistribution(((), (",",)), ((), (2,)), np.array([0.2, 0.8]))
CRF = {(): 0.5, (",",): 0.25, (".",): 0.25}


def test_slot_candidates_floor_and_heads():
    strings, heads, logs = slot_candidates(CRF, GEN, 3)
    assert strings == [(), (",",), (".",)] and heads == [(), (2,), (3,)]
    assert np.allclose(np.exp(logs), [[0.5, 0.2], [0.25, 0.8], [0.25, FLOOR]])


def test_agreed_edits_only_where_both_write_the_same_new_string():
    first = [((",", 1),), (), ((".", 3),), ((";", 4),)]
    second = [((",", 2),), ((",", 2),), ((".", 3),), ((":", 4),)]
    own = [(), (), ((".", 3),), ((",", 4),)]
    # slot 0: both insert a comma (first's heads); 1: only one edits; 2: both keep the
    # learner's period; 3: both edit, to different strings
    assert agreed(first, second, own) == [((",", 1),), (), ((".", 3),), ((",", 4),)]


def test_joint_edits_where_both_models_back_the_same_edit_enough():
    # the only edit from ε both models give mass: ',' with 0.25 * 0.8 = 0.2 (heads: GEN's)
    assert joint([CRF], [GEN], [()], 0.1) == [((",", 2),)]
    assert joint([CRF], [GEN], [()], 0.2) == [()]  # not above the threshold: kept
    # from the learner's ',': deleting it has 0.5 * 0.2 = 0.1, '.' 0.25 * 0 = 0
    assert joint([CRF], [GEN], [((",", 2),)], 0.05) == [()]
    assert joint([CRF], [GEN], [((",", 2),)], 0.1) == [((",", 2),)]
    # a learner string below the generative model's support is kept whatever the CRF says
    quote = (("“", 3),)
    assert joint([{(): 1.0}], [GEN], [quote], 0.0, support=1e-3) == [quote]
    assert joint([{(): 1.0}], [GEN], [quote], 0.0) == [()]
