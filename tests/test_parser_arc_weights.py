"""Arc weights in a parser's local learning (``train(arc_weights=...)``) and the weights of the
arcs at a correction's slots (:mod:`fstpunct.apps.correction.slot_weights`)."""
import re

import numpy as np
import pytest
from learner_pairs import sentences
from tqdm import tqdm

from fstpunct.apps.correction.slot_weights import corrected_slots, slot_arc_weights
from fstpunct.apps.restoration.metrics import slot_strings
from fstpunct.errors import InputError
from fstpunct.parser.train import Perceptron, _greedy_epoch, build, step_weights, train
from fstpunct.ud.slots import to_slots

# 2 ← 1 (nsubj), 0 → 2 (root), 2 → 3 (obj): shift, shift, left-arc, shift, right-arc, right-arc
THREE = """# sent_id = three
1\tDogs\tdog\tNOUN\tNNS\t_\t2\tnsubj\t_\t_
2\tchase\tchase\tVERB\tVBP\t_\t0\troot\t_\t_
3\tcats\tcat\tNOUN\tNNS\t_\t2\tobj\t_\t_

"""


def three():
    return sentences(THREE)


def conllu(rows: list[tuple[str, str, int, str]], sent_id: str) -> str:
    """CoNLL-U of (form, UPOS, head, relation) rows."""
    lines = (f"{i}\t{f}\t_\t{u}\t_\t_\t{h}\t{r}\t_\t_\n" for i, (f, u, h, r) in enumerate(rows, 1))
    return f"# sent_id = {sent_id}\n" + "".join(lines) + "\n"


@pytest.mark.parametrize("weights, steps", [({1: 3}, [1, 1, 3, 1, 1, 1]),
                                            ({3: 3}, [1, 1, 1, 1, 3, 1]),
                                            ({2: 5, 1: 2}, [1, 1, 2, 1, 1, 5]),
                                            ({}, [1] * 6)])
def test_step_weights_are_the_dependents_arc_weights(weights, steps):
    """Each arc step takes its dependent's weight (the left arc's s1, the right arc's s0);
    shifts and unweighted arcs 1."""
    model, (ex,) = build(three(), "tokens", log=lambda m: None)
    assert [model.transitions[a].__class__.__name__ for a in ex.actions] == [
        "Shift", "Shift", "LeftArc", "Shift", "RightArc", "RightArc"]
    assert ex.weights is None
    assert step_weights(model, ex.inp, (1, 2, 3), ex.actions, weights).tolist() == steps
    _, (weighted,) = build(three(), "tokens", log=lambda m: None, arc_weights=[weights])
    assert weighted.weights.tolist() == steps


def test_perceptron_update_by_a_scale():
    p = Perceptron((3, 2))
    p.c = 4
    p.update(np.array([[1, 2]]), np.array([0]), np.array([[1, 2]]), np.array([1]), 3)
    assert p.w.tolist() == [[0, 0], [3, -3], [3, -3]]
    assert p.u.tolist() == [[0, 0], [12, -12], [12, -12]]


def reference_epoch(w: np.ndarray, ex, masks: np.ndarray) -> np.ndarray:
    """Local learning step by step: at each gold configuration, if the best-scoring action is
    not gold's, add the step's weight to the gold action's features and take it from the
    predicted one's (row 0, unknown features, never)."""
    w = w.copy()
    for t, gold in enumerate(ex.actions):
        scale = 1 if ex.weights is None else int(ex.weights[t])
        pred = int(np.argmax(w[ex.rows[t]].sum(axis=0) + masks[ex.legality[t]]))
        if pred != gold:
            for r in ex.rows[t]:
                if r:
                    w[r, gold] += scale
                    w[r, pred] -= scale
    return w


def test_local_learning_weighs_each_wrong_steps_update_by_its_weight():
    """On the 3-word sentence, one epoch from zero weights: the updates are those of the
    step-by-step reference with each step's weight, and differ from the unweighted ones."""
    out = []
    for weights in (None, [{1: 3, 3: 3}]):
        model, examples = build(three(), "tokens", log=lambda m: None, arc_weights=weights)
        masks = model.mask_table()
        p = Perceptron(model.weights.shape)
        with tqdm(disable=True) as bar:
            _greedy_epoch(p, examples, masks, bar)
        assert (p.w == reference_epoch(np.zeros_like(p.w), examples[0], masks)).all()
        out.append(p.w)
    assert p.updates >= 1 and not (out[0] == out[1]).all()
    assert set(np.unique(out[1])) - {0} <= {-3, -2, -1, 1, 2, 3}


def test_train_refuses_arc_weights_it_cannot_use(tmp_path):
    sents = three()
    for bad, message in (({"beam": 2}, "local learning"),
                         ({"beam": 1, "learning": "early"}, "local learning"),
                         ({"beam": 1, "arc_weights": [None, None]}, "2 arc weightings"),
                         ({"beam": 1, "arc_weights": [{1: 0}]}, "at least 1"),
                         ({"beam": 1, "arc_weights": [{1: 2.5}]}, "at least 1")):
        settings = {"arc_weights": [{1: 3}], **bad}
        with pytest.raises(InputError, match=message):
            train(sents, sents, "tokens", out=tmp_path / "m", epochs=1, progress=False,
                  log=lambda m: None, **settings)


NOT_INTEGER = "arc weights are integers of at least 1: training sentence 1's word "


@pytest.mark.parametrize("arc_weights, message", [
    ([], "0 arc weightings given for 1 training sentence"),
    ([None, {1: 3}], "2 arc weightings given for 1 training sentence"),
    ([{1: 2.5}], NOT_INTEGER + "1 has 2.5"),
    ([{3: True}], NOT_INTEGER + "3 has True"),
    ([{2: "3"}], NOT_INTEGER + "2 has '3'"),
    ([{1: 0}], NOT_INTEGER + "1 has 0")])
def test_build_refuses_a_weighting_it_cannot_use_in_one_line(arc_weights, message):
    """Not one weighting a sentence (none dropped or added silently), or a weight that is not
    an integer of at least 1 (none rounded), whoever calls build."""
    with pytest.raises(InputError, match=f"^{re.escape(message)}$"):
        build(three(), "tokens", log=lambda m: None, arc_weights=arc_weights)


def test_build_takes_numpy_integer_weights():
    _, (ex,) = build(three(), "tokens", log=lambda m: None, arc_weights=[{1: np.int64(3)}])
    assert ex.weights.tolist() == [1, 1, 3, 1, 1, 1]


def test_corrected_slots_and_their_arcs():
    """'I think , he came .' corrected to 'I think he came .': slot 2 edited (the comma
    deleted), slot 4 the final one (not inner). The constituents at slot 2 are he's and
    came's (starting there; none ends there) and the words beside it are think and he: their
    arcs, by word id (think 2, he 4, came 5; the comma 3 has none)."""
    learner = [("I", "PRON", 2, "nsubj"), ("think", "VERB", 0, "root"),
               (",", "PUNCT", 5, "punct"), ("he", "PRON", 5, "nsubj"),
               ("came", "VERB", 2, "ccomp"), (".", "PUNCT", 2, "punct")]
    corrected = [learner[k] if k < 2 else (f, u, h - 1 if h > 3 else h, r)
                 for k, (f, u, h, r) in enumerate(learner) if k != 2]
    s, = sentences(conllu(learner, "a"))
    g, = sentences(conllu(corrected, "a"))
    assert corrected_slots(s, g) == [2]
    assert corrected_slots(s, s) == [2]  # punctuated in the correction
    assert corrected_slots(g, g) == []
    assert slot_arc_weights(s, [2], 3) == {2: 3, 4: 3, 5: 3}
    assert slot_arc_weights(s, [1], 2) == {1: 2, 2: 2}  # I ends there; I and think beside it
    assert slot_arc_weights(s, [], 3) == {}
    assert slot_arc_weights(s, iter([1, 2]), 3) == {1: 3, 2: 3, 4: 3, 5: 3}  # one pass


def test_corrected_slots_leave_slot_0_out():
    """'Hi there .' corrected to '" Hi , there . "': the opening quote is at slot 0, before the
    first word, which corrected_slots leaves out (its inner slots are 1 … n − 1, unlike
    slot_trees' 0 … n − 1); the comma's slot 1 is in, the final slot 2 is not."""
    learner = [("Hi", "INTJ", 0, "root"), ("there", "ADV", 1, "advmod"),
               (".", "PUNCT", 1, "punct")]
    corrected = [('"', "PUNCT", 2, "punct"), ("Hi", "INTJ", 0, "root"),
                 (",", "PUNCT", 4, "punct"), ("there", "ADV", 2, "advmod"),
                 (".", "PUNCT", 2, "punct"), ('"', "PUNCT", 2, "punct")]
    s, = sentences(conllu(learner, "b"))
    g, = sentences(conllu(corrected, "b"))
    assert slot_strings(to_slots(g))[0]  # the quote, at slot 0
    assert corrected_slots(s, g) == [1]
