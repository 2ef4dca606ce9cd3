"""The parsed tree at a slot against the gold tree, and the corrector's edits on both
(fstpunct.apps.correction.slot_trees), on hand-made trees whose kinds are worked out by hand."""
import json
from dataclasses import replace

import pytest
from script_module import load_script
from test_correction_agree import held_out_runs, marked

from fstpunct.apps.correction.slot_trees import (
    SlotRow,
    Trees,
    by_kind,
    inner_slots,
    slot_class,
    slot_rows,
)
from fstpunct.apps.restoration.metrics import slot_strings
from fstpunct.ud.slots import SlotSentence, to_slots
from fstpunct.ud.treebank import with_arcs

E = ("xl=ε", "xr=ε", "xp=ε|ε", "sl=ε", "sr=ε")  # a node's T_e' contexts: nothing either side


def tree(heads, deprels, words="abcd", slots=None, contexts=()):
    n = len(heads)
    return SlotSentence(tuple(words[:n]), ("X",) * n, tuple(heads), tuple(deprels),
                        slots or ((),) * (n + 1), tuple(range(1, n + 1)), ((),) * (n + 1),
                        contexts=contexts)


# a b c d: b the root, a → b (nsubj), c → b (obj), d → c (amod). Spans (slots): a 0–1, b 0–4,
# c 2–4, d 3–4, so slot 0 holds b's and a's left punctemes, slot 1 a's right one, slot 2 c's
# left one, slot 3 d's left one (slot 4, the final slot, d's, c's and b's right ones).
GOLD = tree((2, 0, 2, 3), ("nsubj", "root", "obj", "amod"))


def test_kinds_of_the_parsed_tree_at_each_inner_slot():
    # d's relation wrong: slot 3 has d beside it; slot 2's constituent c has d as its child
    # (c=amod against c=nmod); slots 0 and 1: a's and b's features are the same
    relation = Trees(GOLD, tree((2, 0, 2, 3), ("nsubj", "root", "obj", "nmod")))
    assert relation.inner_kinds == ["right", "right", "features differ", "relation wrong"]
    assert relation.templates_differing(2) == ["c"]
    assert relation.templates_differing(3) == ["b", "d"]
    assert relation.templates_differing(1) == [] and relation.head_errors == 0
    # the words either side, whatever the kind: slot 2 (b, c) right; slot 3 (c, d) d's
    # relation wrong, both heads right
    assert [relation.heads_beside_right(i) for i in range(4)] == [True] * 4
    assert [relation.relations_beside_right(i) for i in range(4)] == [True, True, True, False]
    # d → b: c spans 2–3 now, so c's right puncteme moves to slot 3 (edges differ there); at
    # slot 2, c has no child and no longer ends the sentence (c, end) and the word right of
    # its right edge is d (rr); at slot 0, b has d's relation among its children
    head = Trees(GOLD, tree((2, 0, 2, 2), ("nsubj", "root", "obj", "amod")))
    assert head.inner_kinds == ["features differ", "right", "features differ",
                                  "edges differ"]
    assert head.templates_differing(2) == ["c", "end", "rr"]
    assert head.templates_differing(3) == ["c", "end", "pd", "rr"]  # c's and d's
    assert head.head_errors == 1
    # at slot 3 (edges differ) d's head is wrong too, its relation right
    assert [head.heads_beside_right(i) for i in range(4)] == [True, True, True, False]
    assert [head.relations_beside_right(i) for i in range(4)] == [True] * 4
    # x y z: x → root, y and z → x against z the root, x → z, y → x: slot 1 (between x and y)
    # starts y's constituent on both trees, but x's head is wrong
    gold3 = tree((0, 1, 1), ("root", "obj", "obl"), "xyz")
    xyz = Trees(gold3, tree((3, 1, 0), ("obl", "obj", "root"), "xyz"))
    assert xyz.kind(1) == "head wrong"
    assert not xyz.heads_beside_right(1) and not xyz.relations_beside_right(1)  # x's both
    other = Trees(GOLD, tree((2, 0, 2, 3), ("nsubj", "root", "obj", "amod"), "abce"))
    assert other.inner_kinds == ["words differ"] * 4 and other.head_errors == 4
    assert other.templates_differing(0) == [] and not other.reading_same(0)
    assert not other.heads_beside_right(1) and not other.relations_beside_right(1)


def test_slot_class_of_the_learners_and_the_gold_strings():
    assert slot_class((",",), ()) == slot_class((), (",",)) == "gold edit"
    assert slot_class((",",), (";",)) == "gold edit"
    assert slot_class((",",), (",",)) == "marks kept"
    assert slot_class((), ()) == "no marks"


def test_slot_rows_set_each_edit_beside_the_tree_and_reading_at_its_slot():
    learner = ((), (), (), (), (".",))
    gold = ((), (), (",",), (), (".",))  # the gold correction adds a comma at slot 2
    on_gold = ((), (), (",",), (), (".",))  # right on the gold tree
    on_parsed = ((), (), (), (",",), ("!",))  # none at slot 2, a wrong edit at 3; the final
    # slot's edit is not an inner one
    mine = replace(GOLD, slots=learner, contexts=(E,) * 4)
    # d → b (as above); T_e' reads d with a comma on its left on that tree
    theirs = tree((2, 0, 2, 2), ("nsubj", "root", "obj", "amod"), slots=learner,
                  contexts=(E, E, E, ("xl=,", *E[1:])))
    rows = slot_rows(Trees(mine, theirs), gold, on_gold, on_parsed)
    # slot 2: only c's constituent, read alike; d's reading differs elsewhere; b's and c's
    # heads and relations right. Slot 3: c and d (c's right edge on the parsed tree), d read
    # otherwise, d's head wrong; a's and b's alike
    assert rows == [SlotRow(2, True, "right", "none", "features differ", True, True, True,
                            False, 1, ("c", "end", "rr")),
                    SlotRow(3, False, "none", "wrong", "edges differ", False, True, False,
                            True, 1, ("c", "end", "pd", "rr"))]
    counts = by_kind(rows)
    assert counts["features differ"] == {"gold edits": 1, "right on gold": 1,
                                         "lost on parsed": 1, "right on parsed only": 0,
                                         "wrong on gold": 0, "wrong on parsed only": 0}
    assert counts["edges differ"]["wrong on parsed only"] == 1
    assert sum(counts["edges differ"].values()) == 1
    assert counts["right"] == dict.fromkeys(counts["right"], 0)
    # the same edits on the same tree: no slot lost; a slot nobody edits is no row
    same = slot_rows(Trees(mine, mine), gold, on_gold, on_gold)
    assert same == [SlotRow(2, True, "right", "right", "right", True, True, True, True, 0,
                            ())]
    assert slot_rows(Trees(mine, mine), learner, learner, learner) == []


@pytest.mark.parametrize("spied", ["slot_strings", "kind"])
def test_trees_work_out_the_learners_strings_and_each_inner_slots_kind_once(monkeypatch,
                                                                           spied):
    """Trees.learner (the learner's slot strings on the gold tree: ``slot_strings`` of it) and
    Trees.inner_kinds (the tree's kind at every inner slot: ``Trees.kind`` of each), each worked
    out once for the slot classes (inner_slots, which ``slots`` counts over every inner slot)
    and the rows (slot_rows): both read them there (slot_rows worked the kind of an edited slot
    out again)."""
    import fstpunct.apps.correction.slot_trees as module
    owner = module if spied == "slot_strings" else Trees
    real = getattr(owner, spied)
    calls = []

    def counted(*args):
        calls.append(args[-1])  # the sentence read, or the slot judged
        return real(*args)
    monkeypatch.setattr(owner, spied, counted)
    learner = ((), (), (",",), (), (".",))
    mine = replace(GOLD, slots=learner, contexts=(E,) * 4)
    trees = Trees(mine, mine)
    rows = slot_rows(trees, learner, learner, ((), (), (), (), (".",)))
    assert [r.slot for r in rows] == [2] and rows[0].tree == "right"
    assert inner_slots(trees, learner) == [("no marks", "right"), ("no marks", "right"),
                                           ("marks kept", "right"), ("no marks", "right")]
    assert trees.learner == slot_strings(mine)
    assert sorted(calls) == ([mine] if spied == "slot_strings" else [0, 1, 2, 3])


def test_slots_command_on_a_cv_runs_held_out_pairs(tmp_path, monkeypatch, capsys):
    """``slots`` decodes the held-out pairs on the gold trees and on the given ones: its
    edits are compare's (the before side on the gold trees, the after side on the given ones),
    and where the tree and T_e' at the slot are the same, so is the corrector's probability."""
    script = load_script("correction")
    data, work, run = held_out_runs(script, monkeypatch, tmp_path)
    _, fold_of = script.document_folds(data, list(script.SPLITS), 2)
    learner = [s for split in script.SPLITS
               for s in script.read_file(data / f"en_esl-ud-{split}.conllu")]
    pooled = script.pooled_pairs(data, list(script.SPLITS), False)[0]
    # the gold trees, but one word's relation changed: a word that is neither punctuation nor
    # the root, of the first held-out pair's learner sentence with one
    changed = next(s for _, s, _ in pooled
                   if any(w.deprel not in ("punct", "root") for w in s.words))
    word = next(w for w in changed.words if w.deprel not in ("punct", "root"))
    trees = []
    for s in learner:
        if s.sent_id == changed.sent_id:
            s = with_arcs(s, {word.id: (word.head, "dep" if word.deprel != "dep" else "nmod")})
        trees.append(marked(s, 2, fold_of[s.sent_id.rsplit("-", 1)[0]]))
    path = tmp_path / "trees.conllu"
    script.write_file(trees, path)
    loads = []
    real_load = script.CorrectionModel.load

    def counted_load(folder):
        loads.append(str(folder))
        return real_load(folder)
    monkeypatch.setattr(script.CorrectionModel, "load", counted_load)
    listed = []
    real_listing = script.learner_sentences

    def counted_listing(*args):
        listed.append(args)
        return real_listing(*args)
    monkeypatch.setattr(script, "learner_sentences", counted_listing)
    got = run("slots", "slots.json", "--trees", str(path))
    # each fold's corrector loaded once, for both trees; the learner files listed once
    assert sorted(loads) == [str(work / f"fold{fold}" / "correct") for fold in (0, 1)]
    assert len(listed) == 1
    out = capsys.readouterr().out
    assert "| tree at the slot | inner slots | gold edit | marks kept | no marks |" in out
    words = [to_slots(s).n for _, s, _ in pooled]
    kinds = {}
    for _, kind, count in got["inner_slots"]:
        kinds[kind] = kinds.get(kind, 0) + count
    assert sum(kinds.values()) == sum(words)  # every inner slot: n of a sentence of n words
    # the changed word's slots: beside it (its relation wrong) or its constituents' features
    assert set(kinds) <= {"right", "relation wrong", "features differ"}
    assert 1 <= kinds.get("relation wrong", 0) <= 2
    # the slot classes: the gold correction's inner-slot edits over the pairs, and the rest
    classes = {}
    for name, _, count in got["inner_slots"]:
        classes[name] = classes.get(name, 0) + count
    inner = [(x, y) for _, s, g in pooled
             for x, y in zip(slot_strings(to_slots(s))[:-1], slot_strings(to_slots(g))[:-1])]
    edited = sum(x != y for x, y in inner)
    assert edited and classes["gold edit"] == edited
    # counted directly, not as the rest: swapping "marks kept" and "no marks" fails here
    # (these pairs keep no inner mark: 0 and all the others)
    assert classes.get("marks kept", 0) == sum(x == y and x != () for x, y in inner)
    assert classes["no marks"] == sum(x == y == () for x, y in inner)
    both = run("compare", "compare.json", "--before", str(work), "--after", str(work),
               "--after-trees", str(path), "--after-decoder", "learner", "--before-decoder",
               "learner")
    assert len(listed) == 2  # compare's once too
    for side, row in (("on_gold", "before (cost 0.2)"), ("on_parsed", "after (cost 0.2)")):
        right, proposed = both["final_or_inner"][row]["inner"]
        assert sum(r[side] == "right" for r in got["rows"]) == right
        assert sum(r[side] != "none" for r in got["rows"]) == proposed
    assert got["rows"] and all(r["pair"] < len(pooled) for r in got["rows"])
    # the check below is not vacuous: some edited slot is right, with T_e' the same there
    assert any(r["tree"] == "right" and r["reading_same"] for r in got["rows"])
    for r in got["rows"]:
        # only a relation changed: every head right, the relations beside a slot wrong only
        # where its kind says so
        assert r["heads_beside_right"]
        assert r["relations_beside_right"] == (r["tree"] != "relation wrong")
        if r["tree"] == "right" and r["reading_same"]:
            assert r["p_gold_on_gold"] == r["p_gold_on_parsed"]
            # the same choice too, on this data (the learner decoder's balancing of paired
            # marks over the sentence could move it; here it does not)
            assert r["on_gold"] == r["on_parsed"]
    def unloaded(*args, **kwargs):
        raise AssertionError("a fold corrector loaded before the refusal")
    monkeypatch.setattr(script.CorrectionModel, "load", unloaded)
    # a trees file without a learner sentence: refused in one line, before any fold's
    # corrector is loaded
    bad = tmp_path / "short.conllu"
    script.write_file(trees[1:], bad)
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        run("slots", "short.json", "--trees", str(bad))
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and "\n" not in err
    assert f"{bad}: sentence {learner[0].sent_id} of " in err and err.endswith(" is missing")
    # a fold corrector that reads drawn readings of T_e': refused in one line, before any
    # fold's corrector is loaded
    record = work / "fold1" / "correct" / "correction.json"
    stored = json.loads(record.read_text(encoding="utf-8"))
    stored["record"]["readings"] = 2
    record.write_text(json.dumps(stored), encoding="utf-8")
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        run("slots", "drawn.json", "--trees", str(path))
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and "\n" not in err
    assert err.endswith(f"slots: {work / 'fold1'} reads drawn readings of T_e', not one")
