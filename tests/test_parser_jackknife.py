"""Jackknifed parses: each fold parsed by the parser trained on the other folds only."""
import shutil
from collections.abc import Callable
from typing import TypeVar

import pytest
from learner_pairs import PLAIN, RELATIVE, bare, conll, sentences
from test_correction_cv import chained

from fstpunct.errors import InputError
from fstpunct.parser import Model, jackknife, parse
from fstpunct.parser.jackknife import (
    checked_extra,
    cut_relations,
    jackknifed,
    nested_jackknifed,
)
from fstpunct.parser.punct import PROPS_VERSION
from fstpunct.parser.tagger import depunctuated, retagged
from fstpunct.parser.train import PATIENCE
from fstpunct.ud.treebank import Sentence

GOLD = [4, 3, 1, 0, 4, 4]  # "Peter who runs is here ." (the relative clause without commas)
CHAIN = [2, 3, 4, 5, 0, 5]  # every word headed by the next, the period by the last word
# two folds of four sentences, and the sentences flagged as held-out dev data (one per fold)
FOLDS, FLAGS = [0, 0, 0, 0, 1, 1, 1, 1], [False, False, True, False, True, False, False, False]
T = TypeVar("T")


def relatives(prefix: str, n: int, drop: tuple[int, ...] = ()) -> list[Sentence]:
    """``n`` copies of the relative clause, sent_ids ``prefix0``, ``prefix1``, … (``drop``:
    the positions left out, as :func:`~learner_pairs.conll` takes them; ``(1, 4)``: without
    the commas)."""
    return sentences("".join(conll(RELATIVE, f"{prefix}{k}", drop) for k in range(n)))


def test_each_fold_is_parsed_by_the_parser_trained_without_it(tmp_path):
    gold = relatives("g", 4, drop=(1, 4))
    chains = [chained(s) for s in relatives("c", 4, drop=(1, 4))]
    assert [w.head for w in gold[0].words] == GOLD and [w.head for w in chains[0].words] == CHAIN
    every, folds = gold + chains, [0] * 4 + [1] * 4
    logged: list[str] = []
    parsed = jackknifed(every, folds, gold, "tokens", 1, tmp_path, log=logged.append, epochs=1)
    # fold 0 (gold trees) is parsed by the parser that saw the chains only, and fold 1 by the
    # one that saw the gold trees only
    assert [[w.head for w in s.words] for s in parsed] == [CHAIN] * 4 + [GOLD] * 4
    assert [s.sent_id for s in parsed] == [s.sent_id for s in every]
    assert [(s.comment("jackknife_folds"), s.comment("jackknife_fold")) for s in parsed] == [
        ("2", str(f)) for f in folds]
    assert not any(c.startswith("# jackknife") for s in every for c in s.comments)
    for fold in (0, 1):
        model = Model.load(tmp_path / f"fold{fold}")
        assert model.info["train_sentences"] == 4 and model.info["jackknife_fold"] == fold
        mine = [s for s, f in zip(every, folds) if f == fold]
        assert [parse(model, s, 1).text() for s in mine] == [
            bare(p) for p, f in zip(parsed, folds) if f == fold]
    # the fold parsers are loaded, not trained again
    logged.clear()
    again = jackknifed(every, folds, gold, "tokens", 1, tmp_path, log=logged.append, epochs=1)
    assert logged == [] and [s.text() for s in again] == [s.text() for s in parsed]
    # parsers saved for other folds are not reused: they may have seen the sentences
    with pytest.raises(InputError, match="a parser of other folds"):
        jackknifed(every, [0, 1, 2, 0, 1, 2, 0, 1], gold, "tokens", 1, tmp_path, epochs=1)


@pytest.mark.parametrize("folds, says", [([0, 1], "2 folds given for 3"), ([0, 0, 0], "two")])
def test_bad_folds(tmp_path, folds, says):
    three = relatives("g", 3)
    with pytest.raises(InputError, match=says):
        jackknifed(three, folds, three, "tokens", 1, tmp_path)


def per_fold(train_calls: list[dict], what: Callable[[dict], T]) -> dict[int, T]:
    """``what`` of each fold's last parser training among ``train_calls`` (conftest's)."""
    return {call["info"]["jackknife_fold"]: what(call) for call in train_calls}


def sent_ids(call: dict) -> tuple[list[str], list[str]]:
    """A parser training's training and dev sent_ids (a call of conftest's train_calls)."""
    return [s.sent_id for s in call["train_sents"]], [s.sent_id for s in call["dev_sents"]]


def test_held_dev_flags_choose_the_other_folds_epochs_and_train_nothing(tmp_path,
                                                                        train_calls):
    every = relatives("s", 8)
    parsed = jackknifed(every, FOLDS, [], "tokens", 1, tmp_path, held_dev=FLAGS, epochs=1)
    seen = per_fold(train_calls, sent_ids)
    # fold 0's parser: trained on fold 1's unflagged sentences, its epoch chosen on fold 1's
    # flagged one; no sentence of fold 0 seen (and the other way round)
    assert seen == {0: (["s5", "s6", "s7"], ["s4"]), 1: (["s0", "s1", "s3"], ["s2"])}
    assert [s.sent_id for s in parsed] == [s.sent_id for s in every]  # flagged ones parsed too
    for fold in (0, 1):
        model = Model.load(tmp_path / f"fold{fold}")
        assert model.info["train_sentences"] == 3
        assert [parse(model, s, 1).text() for s, f in zip(every, FOLDS) if f == fold] == [
            bare(p) for p, f in zip(parsed, FOLDS) if f == fold]
    with pytest.raises(InputError, match=r"^fold 1: no dev sentence to choose its parser's "
                       r"epoch \(none flagged in the other folds\)$"):
        jackknifed(every, FOLDS, [], "tokens", 1, tmp_path / "x", held_dev=[False] * 4 + FLAGS[4:])
    with pytest.raises(InputError, match="7 dev flags given for 8 sentences"):
        jackknifed(every, FOLDS, [], "tokens", 1, tmp_path / "y", held_dev=FLAGS[:7])
    with pytest.raises(InputError, match="and a dev set besides"):
        jackknifed(every, FOLDS, every, "tokens", 1, tmp_path / "z", held_dev=FLAGS)


def test_parsed_sentences_are_read_in_place_of_the_training_ones(tmp_path):
    gold = relatives("g", 4, drop=(1, 4))
    folds = [0, 0, 1, 1]
    # the parsers train on the gold tags; what they parse is copies with other tags
    tagged = [retagged(s, ["NOUN"] * len(depunctuated(s)[0])) for s in gold]
    out = jackknifed(gold, folds, gold, "tokens", 1, tmp_path, epochs=1, parsed=tagged)
    assert [w.upos for w in out[0].words] == [w.upos for w in tagged[0].words]
    for fold in (0, 1):
        model = Model.load(tmp_path / f"fold{fold}")
        assert [parse(model, t, 1).text() for t, f in zip(tagged, folds) if f == fold] == [
            bare(p) for p, f in zip(out, folds) if f == fold]
    # (the training sentences counted too: it said "given for 4")
    with pytest.raises(InputError, match="^3 sentences to parse given for 4 sentences$"):
        jackknifed(gold, folds, gold, "tokens", 1, tmp_path, epochs=1, parsed=tagged[:3])
    # the same number of tokens is not enough: the same words
    other = sentences(conll(RELATIVE, "o", drop=(1, 4)).replace("Peter", "Paul"))
    with pytest.raises(InputError, match=r"sentence 2 to parse \(o\) has other words than its "
                                         r"training sentence \(g1\)"):
        jackknifed(gold, folds, gold, "tokens", 1, tmp_path, epochs=1,
                   parsed=[tagged[0], other[0], *tagged[2:]])


def test_saved_parsers_are_not_reused_for_another_dev_source(tmp_path):
    """A parser whose epoch the whole dev file chose is not reused where the other folds'
    flagged sentences choose it, though it trained on the same sentences."""
    every = relatives("s", 8)
    kept = [(s, f) for s, f, d in zip(every, FOLDS, FLAGS) if not d]
    dev = [s for s, d in zip(every, FLAGS) if d]
    jackknifed([s for s, _ in kept], [f for _, f in kept], dev, "tokens", 1, tmp_path, epochs=1)
    with pytest.raises(InputError, match="dev_held_out False not True"):
        jackknifed(every, FOLDS, [], "tokens", 1, tmp_path, held_dev=FLAGS, epochs=1)
    # nor one trained on other sentences of as many
    again = relatives("t", 6)
    with pytest.raises(InputError, match="train_digest"):
        jackknifed(again, [f for _, f in kept], dev, "tokens", 1, tmp_path, epochs=1)


def test_saved_parsers_are_not_reused_for_other_settings_or_trees(tmp_path):
    """A parser trained for another epochs cap or patience, or on the same words with other
    trees or tags, is not reused (were: the record held none of them but the epochs given; a
    default was not recorded, so a setting given as its default was refused); nor is one from
    an older folder, whose record lacks the settings."""
    every, folds, dev = relatives("s", 8, drop=(1, 4)), [0] * 4 + [1] * 4, relatives("d", 2)
    jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1)
    info = Model.load(tmp_path / "fold0").info
    saved = info["train_settings"]
    assert saved == {"beam": 1, "epochs": 1, "learning": "local", "lowercase": False,
                     "min_count": 1, "mode": "tokens", "patience": PATIENCE,
                     "props_version": PROPS_VERSION, "seed": 1}
    assert saved["learning"] == info["learning"]  # what train used (was: None, unresolved)
    jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1, learning="local")
    jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1, patience=PATIENCE, seed=1)
    with pytest.raises(InputError, match=r"train_settings .*'epochs': 1.* not .*'epochs': 2"):
        jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=2)
    with pytest.raises(InputError, match=rf"train_settings .*'patience': {PATIENCE}.* not "
                       r".*'patience': 2"):
        jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1, patience=2)
    with pytest.raises(InputError, match="train_digest"):
        jackknifed([chained(s) for s in every], folds, dev, "tokens", 1, tmp_path, epochs=1)
    verbs = [retagged(s, ["VERB"] * sum(w.upos != "PUNCT" for w in s.words)) for s in every]
    assert [w.form for s in verbs for w in s.words] == [w.form for s in every for w in s.words]
    with pytest.raises(InputError, match="train_digest"):
        jackknifed(verbs, folds, dev, "tokens", 1, tmp_path, epochs=1)
    old = Model.load(tmp_path / "fold0")
    del old.info["train_settings"]
    old.save_meta(tmp_path / "fold0")
    with pytest.raises(InputError, match="^[^\n]*fold0: .*train_settings None not"):
        jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1)


def test_parsers_of_records_with_learning_unresolved_are_reused(tmp_path, monkeypatch):
    """A fold parser saved before its record resolved ``learning`` (None: train's default for
    the beam, local at beam 1) is reused, not trained again, for that learning, given or not;
    not for another (early)."""
    every, folds, dev = relatives("s", 8, drop=(1, 4)), [0] * 4 + [1] * 4, relatives("d", 2)
    first = jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1)
    for fold in ("fold0", "fold1"):
        old = Model.load(tmp_path / fold)
        old.info["train_settings"]["learning"] = None  # as recorded before
        old.save_meta(tmp_path / fold)

    def trained(*args, **kwargs):
        raise AssertionError("trained again")

    monkeypatch.setattr(jackknife, "train", trained)
    assert jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1) == first
    assert jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1,
                      learning="local") == first
    with pytest.raises(InputError, match=r"train_settings .*'learning': 'local'.* not "
                                         r".*'learning': 'early'"):
        jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1, learning="early")
    old = Model.load(tmp_path / "fold0")
    old.info["train_settings"]["rate"] = 0.5  # a setting train does not take: refused
    old.save_meta(tmp_path / "fold0")
    with pytest.raises(InputError, match=r"^[^\n]*fold0: .*'rate': 0.5"):
        jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1)


def test_parsers_of_records_lacking_a_setting_are_refused(tmp_path, monkeypatch):
    """A fold parser whose record lacks a setting (written before records held them all: a
    changed default would reuse it silently) is refused in one line, not reused with today's
    defaults filled in; its learning None resolved changes nothing of that."""
    every, folds, dev = relatives("s", 8, drop=(1, 4)), [0] * 4 + [1] * 4, relatives("d", 2)
    jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1)

    def trained(*args, **kwargs):
        raise AssertionError("trained again")

    monkeypatch.setattr(jackknife, "train", trained)
    old = Model.load(tmp_path / "fold0")
    del old.info["train_settings"]["props_version"]
    old.info["train_settings"]["learning"] = None
    old.save_meta(tmp_path / "fold0")
    with pytest.raises(InputError, match=r"^[^\n]*fold0: .*train_settings "):
        jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1)
    old.info["train_settings"] = {"mode": "tokens", "beam": 1, "epochs": 1}  # the given only
    old.save_meta(tmp_path / "fold0")
    with pytest.raises(InputError, match=r"^[^\n]*fold0: .*train_settings "):
        jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=1)


class Killed(Exception):
    """The run killed (a spy's stand-in for a signal)."""


def test_a_parser_cut_short_is_not_reused(tmp_path, monkeypatch):
    """A fold whose training was cut short after its first checkpoint (the best epoch so far,
    saved with the whole record; in fold0.partial, fold0 being written only at the end) is
    refused in one line when the run is repeated with it in fold0 (was: reused as a finished
    parser); once removed, it is trained again, and then reused."""
    every, folds, dev = relatives("s", 8, drop=(1, 4)), [0] * 4 + [1] * 4, relatives("d", 2)
    real = jackknife.train

    def killed(rest, dev, *args, log, **more):
        def cut(said: str) -> None:
            if said.startswith("epoch 2:"):  # epoch 1 is saved: its dev UAS beats none
                raise Killed
        return real(rest, dev, *args, log=cut, **more)

    monkeypatch.setattr(jackknife, "train", killed)
    with pytest.raises(Killed):
        jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=3)
    assert not (tmp_path / "fold0").exists()
    (tmp_path / "fold0.partial").rename(tmp_path / "fold0")  # as fold0 was left before
    assert Model.load(tmp_path / "fold0").info["jackknife_fold"] == 0
    monkeypatch.setattr(jackknife, "train", real)
    with pytest.raises(InputError, match=r"^[^\n]*fold0: training cut short \(its last "
                       r"checkpoint at epoch 1\): remove it$"):
        jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=3)
    shutil.rmtree(tmp_path / "fold0")
    first = jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=3)
    assert Model.load(tmp_path / "fold0").info["finished"] is True
    assert not (tmp_path / "fold0.partial").exists()
    assert jackknifed(every, folds, dev, "tokens", 1, tmp_path, epochs=3) == first


def test_extra_sentences_train_every_fold_and_are_not_parsed(tmp_path, train_calls):
    """``extra`` (e.g. another treebank's train split) joins each fold's training sentences,
    never its dev ones, and is not parsed; a parser saved without them is not reused."""
    every, extra = relatives("s", 8), relatives("e", 2)
    jackknifed(every, FOLDS, [], "tokens", 1, tmp_path / "plain", held_dev=FLAGS, epochs=1)
    parsed = jackknifed(every, FOLDS, [], "tokens", 1, tmp_path / "extra", held_dev=FLAGS,
                        epochs=1, extra=extra)
    assert per_fold(train_calls, sent_ids) == {0: (["s5", "s6", "s7", "e0", "e1"], ["s4"]),
                    1: (["s0", "s1", "s3", "e0", "e1"], ["s2"])}
    assert [s.sent_id for s in parsed] == [s.sent_id for s in every]
    assert Model.load(tmp_path / "extra" / "fold0").info["train_sentences"] == 5
    with pytest.raises(InputError, match="train_digest"):
        jackknifed(every, FOLDS, [], "tokens", 1, tmp_path / "plain", held_dev=FLAGS,
                   epochs=1, extra=extra)
    # a sentence jackknifed (by sent_id) would train its own fold's parser: refused
    with pytest.raises(InputError, match=r"^<stdin>:\d+ \(sent_id s3\): extra training "
                       "sentence with the sent_id of one of the sentences jackknifed"):
        jackknifed(every, FOLDS, [], "tokens", 1, tmp_path / "x", held_dev=FLAGS, epochs=1,
                   extra=[extra[0], every[3]])


def test_extra_sentences_are_checked_by_sent_id_against_the_dev_ones_too():
    """An extra sentence with the sent_id of a dev sentence (which chooses the folds' epoch)
    is refused, naming its place; sentences without a sent_id are not compared (were all
    refused: None was one of the ids)."""
    every, dev = relatives("s", 4), relatives("d", 2)
    idless = sentences("".join(conll(RELATIVE, "x", ()).split("\n", 1)[1] for _ in range(3)))
    assert [s.sent_id for s in idless] == [None] * 3
    checked_extra(every + idless[:2], idless[2:], dev)
    checked_extra(idless[:2], idless[2:])
    with pytest.raises(InputError, match=r"^<stdin>:\d+ \(sent_id d1\): extra training "
                       "sentence with the sent_id of a dev sentence"):
        checked_extra(every, [idless[0], dev[1]], dev)


def relabelled(rows: list[tuple[str, int, str]], word: int, rel: str) -> list[tuple[str, int, str]]:
    """``rows`` with word ``word``'s (1-based) relation ``rel``."""
    return [(f, h, rel if k == word else r) for k, (f, h, r) in enumerate(rows, 1)]


def test_cut_relations_cuts_what_the_inventory_lacks_to_its_base():
    """A relation outside the inventory becomes its base when the base is in it, else stays;
    the DEPREL field and the word change together, and the input sentences do not change."""
    text = conll(relabelled(relabelled(RELATIVE, 7, "advmod:emph"), 3, "dep"), "e0") \
        + conll(PLAIN, "e1")
    extra = sentences(text)
    inventory = {"nsubj", "punct", "root", "advmod"}
    cut, arcs = cut_relations(extra, inventory)
    assert arcs == {"advmod:emph": 1}
    assert [w.deprel for w in cut[0].words] == [
        "nsubj", "punct", "dep", "acl:relcl", "punct", "root", "advmod", "punct"]
    assert [ln.fields[7] for ln in cut[0].lines] == [w.deprel for w in cut[0].words]
    assert cut[1] is extra[1] and "".join(s.text() for s in extra) == text
    assert cut_relations(extra, inventory | {"acl:relcl", "dep", "advmod:emph"})[1] == {}
    # with "acl" in the inventory, acl:relcl is cut too (a relation its base's subtype)
    assert cut_relations(extra, inventory | {"acl"})[1] == {"advmod:emph": 1, "acl:relcl": 1}


def test_cut_relations_follow_each_folds_own_learner_training_sentences(tmp_path, train_calls):
    """With ``cut``, each fold's copy of ``extra`` is cut to the relations of that fold's
    training sentences (not its dev ones, nor the jackknifed sentences of its own fold): fold
    1's training sentences (fold 0's unflagged s0, s1, s3) use no advmod:emph, though its dev
    sentence (fold 0's flagged s2) does; fold 0's (fold 1's) do. The learner sentences never
    change; a parser trained without the cut is not reused."""
    emph = relabelled(PLAIN, 3, "advmod:emph")
    every = sentences("".join(conll(PLAIN if k in (0, 1, 3) else emph, f"s{k}")
                              for k in range(8)))
    assert [s.sent_id for s, f in zip(every, FLAGS) if f] == ["s2", "s4"]
    extra = sentences(conll(emph, "e0"))

    def trained() -> dict[int, list[list[str]]]:
        return per_fold(train_calls, lambda call: [[w.deprel for w in s.words]
                                                   for s in call["train_sents"]])

    before = "".join(s.text() for s in every + extra)
    jackknifed(every, FOLDS, [], "tokens", 1, tmp_path / "cut", held_dev=FLAGS, epochs=1,
               extra=extra, cut=True)
    assert trained()[0][-1][2] == "advmod:emph" and trained()[1][-1][2] == "advmod"
    assert "".join(s.text() for s in every + extra) == before
    assert [Model.load(tmp_path / "cut" / f"fold{k}").info["relations_cut"] for k in (0, 1)] \
        == [{}, {"advmod:emph": 1}]
    jackknifed(every, FOLDS, [], "tokens", 1, tmp_path / "whole", held_dev=FLAGS, epochs=1,
               extra=extra)
    assert trained()[1][-1][2] == "advmod:emph"
    assert Model.load(tmp_path / "whole" / "fold1").info["relations_cut"] is None
    for work, cut in (("whole", True), ("cut", False)):
        with pytest.raises(InputError, match="relations_cut"):
            jackknifed(every, FOLDS, [], "tokens", 1, tmp_path / work, held_dev=FLAGS,
                       epochs=1, extra=extra, cut=cut)


def test_nested_jackknife_parses_fold_j_for_outer_fold_k_with_the_parser_of_neither(tmp_path):
    """Each sentence of fold j, for each outer fold k ≠ j, is parsed by the parser trained on
    the folds other than j and k (fold 0 and 2 gold trees, fold 1 chains: the parser of {0, 1}
    saw gold trees only, that of {0, 2} chains only), once, in the order (k, sentence)."""
    gold, chains = relatives("g", 8, drop=(1, 4)), [chained(s)
                                                   for s in relatives("c", 4, drop=(1, 4))]
    every, folds = gold[:4] + chains + gold[4:], [0] * 4 + [1] * 4 + [2] * 4
    out = nested_jackknifed(every, folds, gold, "tokens", 1, tmp_path, epochs=1)
    heads = {(0, 1): GOLD, (0, 2): CHAIN, (1, 2): GOLD}  # what each pair's parser learnt
    want = [(str(k), str(f), s.sent_id, heads[min(f, k), max(f, k)])
            for k in range(3) for s, f in zip(every, folds) if f != k]
    assert [(t.comment("jackknife_outer_fold"), t.comment("jackknife_fold"), t.sent_id,
             [w.head for w in t.words]) for t in out] == want
    assert all(t.comment("jackknife_folds") == "3" for t in out)
    for a, b in ((0, 1), (0, 2), (1, 2)):
        model = Model.load(tmp_path / f"fold{a}-{b}")
        assert model.info["nested_folds"] == [a, b] and model.info["train_sentences"] == 4
        by_id = {x.sent_id: x for x in every}
        mine = [t for t in out if {int(t.comment("jackknife_outer_fold")),
                                   int(t.comment("jackknife_fold"))} == {a, b}]
        assert len(mine) == 8 and all(bare(t) == parse(model, by_id[t.sent_id], 1).text()
                                      for t in mine)
    with pytest.raises(InputError, match="a nested jackknife needs at least three folds"):
        nested_jackknifed(every, [0] * 6 + [1] * 6, gold, "tokens", 1, tmp_path / "x", epochs=1)


def test_nested_parsers_train_on_the_third_folds_and_choose_their_epoch_there(tmp_path,
                                                                             monkeypatch):
    """With ``held_dev``, the parser of folds {j, k} trains on the unflagged sentences of the
    other folds only and chooses its epoch on their flagged ones."""
    every = relatives("s", 9)
    folds, flags = [0] * 3 + [1] * 3 + [2] * 3, [False, True, False, False, False, True,
                                                 True, False, False]
    seen: dict[tuple[int, int], tuple[list[str], list[str]]] = {}
    real = jackknife.train

    def spied(rest, dev, *args, info, **more):
        seen[tuple(info["nested_folds"])] = ([s.sent_id for s in rest], [s.sent_id for s in dev])
        return real(rest, dev, *args, info=info, **more)

    monkeypatch.setattr(jackknife, "train", spied)
    out = nested_jackknifed(every, folds, [], "tokens", 1, tmp_path, held_dev=flags, epochs=1)
    assert seen == {(0, 1): (["s7", "s8"], ["s6"]), (0, 2): (["s3", "s4"], ["s5"]),
                    (1, 2): (["s0", "s2"], ["s1"])}
    assert len(out) == 18  # each sentence for the two outer folds not its own, flagged too
    with pytest.raises(InputError, match="folds 0, 1: no dev sentence"):
        nested_jackknifed(every, folds, [], "tokens", 1, tmp_path / "x",
                          held_dev=flags[:6] + [False] * 3, epochs=1)


def test_a_weighting_it_cannot_use_is_refused_before_any_fold_trains(tmp_path, train_calls):
    gold = relatives("g", 4, drop=(1, 4))
    folds = [0, 0, 1, 1]
    with pytest.raises(InputError, match="^3 arc weightings given for 4 training sentences$"):
        jackknifed(gold, folds, gold, "tokens", 1, tmp_path, epochs=1, learning="local",
                   arc_weights=[None] * 3)
    # a weight train cannot use, in fold 1's sentences: refused before fold 0 trains
    with pytest.raises(InputError, match="training sentence 4's word 2 has 2.5"):
        jackknifed(gold, folds, gold, "tokens", 1, tmp_path, epochs=1, learning="local",
                   arc_weights=[None, None, None, {2: 2.5}])
    assert train_calls == []
