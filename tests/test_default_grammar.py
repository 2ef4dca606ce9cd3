"""The default grammar (any language, from its training data) and UD releases of either layout."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import treebank

from fstpunct.cli.main import main
from fstpunct.errors import GrammarError, InputError
from fstpunct.fst.default_grammar import (
    default_grammar,
    default_rules,
    full_stop,
    language_grammar,
    point_class,
    symmetric_pairs,
)
from fstpunct.fst.grammar import parse_grammar
from fstpunct.model.fit import perplexity, train
from fstpunct.model.punct import Settings
from fstpunct.ud.release import find_treebank, read_one, resolve
from fstpunct.ud.slots import to_slots

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


@pytest.fixture
def toy(toy_ud):
    """Slot sentences of a split of the toy release's old-layout treebank."""
    def read(split: str) -> list:
        return [to_slots(s) for s in read_one(str(toy_ud / "UD_Toy" / f"xx-ud-{split}.conllu"))]
    return read


@pytest.mark.parametrize("token, level", [
    (",", "comma"), ("،", "comma"), ("、", "comma"), ("，", "comma"), ("-", "dash"),
    ("–", "dash"), ("—", "dash"), ("--", "dash"), (";", "semicolon"), ("؛", "semicolon"),
    ("；", "semicolon"), (":", "colon"), ("：", "colon"), (".", "stop"), ("。", "stop"),
    ("?", "stop"), ("؟", "stop"), ("!", "stop"), ("।", "stop"), ("…", "stop"), ("...", "stop"),
    ("?!", "stop"), ("¿", None), ("¡", None), ("(", None), ("»", None), ("“", None),
    ("-,", None), ("/", None), ("·", None),
])
def test_points_are_classed_by_unicode_alone(token, level):
    assert point_class(token) == level


def test_pairs_come_from_unicode_classes_and_the_data(toy):
    sents = toy("train")
    tokens = ["(", ")", "«", "»", "“", "”", "‘", "「", "」", "《", "》", "„"]
    pairs = symmetric_pairs(sents, tokens)
    # Ps/Pe and Pi/Pf by their mirrored names; ‘ has no partner here; „ (Ps, no Pe partner)
    # takes “ only when “ is free: here “ is already ” 's partner
    assert pairs == [("(", ")"), ("«", "»"), ("“", "”"), ("「", "」"), ("《", "》")]
    # without ”, the low quote „ pairs with the mark that follows it in the data (German)
    assert symmetric_pairs(sents, ["„", "“", "(", ")"]) == [("(", ")"), ("„", "“")]


def test_default_rules_absorb_by_strength_and_brackets(toy):
    sents = toy("train")
    grammar = default_grammar(sents, "xx")
    assert grammar.language == "xx" and grammar.path == "<default>"
    assert grammar.pairs == [("(", ")"), ("„", "“")] and grammar.full_stop == "."
    edits = {(r.a, r.b): r.edit for r in grammar.rules}
    assert edits[(",", ".")] == "LEFT" and edits[(".", ",")] == "RIGHT"
    assert edits[(",", ",")] == "LEFT" and edits[(".", ".")] == "LEFT"
    assert edits[(",", ")")] == "LEFT" and edits[(",", "“")] == "LEFT"
    assert edits[("(", ",")] == "RIGHT" and edits[("∘", ",")] == "RIGHT"
    assert edits[("<abbv>", ".")] == "RIGHT"
    assert not {(",", "("), (")", ","), ("“", ",")} & set(edits)  # outer sides keep
    # the text is an ordinary rule file
    assert parse_grammar(default_rules(sents, "xx")).rules == grammar.rules


def test_full_stop_is_the_commonest_sentence_end(toy):
    sents = toy("train")
    assert full_stop(sents) == "."
    assert full_stop([]) == "."


def test_language_grammar_reads_the_rule_file_or_builds_the_default():
    treebank("de", "train")  # de has no rule file: its default grammar
    assert language_grammar("hi").full_stop == "।" and language_grammar("hi").path.endswith(
        "hi.rules")
    de = language_grammar("de")
    assert de.path == "<default>" and ("„", "“") in de.pairs and de.full_stop == "."
    with pytest.raises(InputError, match="'xx'"):
        language_grammar("xx")


def test_fullstop_directive():
    base = "language x\ndirection ltr\n"
    assert parse_grammar(base).full_stop == "."
    assert parse_grammar(base + "fullstop ।\n").full_stop == "।"
    with pytest.raises(GrammarError, match="twice"):
        parse_grammar(base + "fullstop .\nfullstop .\n")


def test_direction_is_chosen_by_dev_perplexity(toy):
    sents, dev = toy("train"), toy("dev")
    grammar = default_grammar(sents)
    settings = Settings(lexical=0)
    trained = train(sents, grammar, ["ltr", "rtl"], dev=dev, iterations=1, settings=settings)
    scores = trained.dev_perplexity
    assert set(scores) == {"ltr", "rtl"}
    assert trained.model.channel.direction == min(scores, key=scores.get)
    assert perplexity(trained.model, dev)[1] == pytest.approx(min(scores.values()))
    with pytest.raises(InputError, match="--dev"):
        train(sents, grammar, ["ltr", "rtl"], iterations=1, settings=settings)


def test_old_and_new_release_layouts(toy_ud):
    assert find_treebank("xx", "train", toy_ud) == toy_ud / "UD_Toy" / "xx-ud-train.conllu"
    assert [s.name for s in resolve("xx", toy_ud)] == ["xx train", "xx dev", "xx test"]
    assert [s.name for s in resolve("xx-dev", toy_ud)] == ["xx dev"]
    assert [s.name for s in resolve("xx_new", toy_ud)] == ["xx_new test"]
    old = list(resolve("xx-test", toy_ud)[0].sentences())
    new = list(resolve("xx_new", toy_ud)[0].sentences())
    assert [s.sent_id for s in old] == [None, None]
    assert [s.sent_id for s in new] == ["new-1", "new-2"]
    with pytest.raises(InputError, match="neither a file"):
        resolve("yy", toy_ud)


def test_train_on_any_ud_files_without_lang_or_grammar(tmp_path, capsys, toy_ud):
    out = tmp_path / "m"
    assert main(["train", "--train", str(toy_ud / "UD_Toy" / "xx-ud-train.conllu"),
                 "--dev", str(toy_ud / "UD_Toy" / "xx-ud-dev.conllu"), "--iterations", "1",
                 "--jobs", "1", "--lexical", "0", "-o", str(out)]) == 0
    record = json.loads((out / "model.json").read_text(encoding="utf-8"))["record"]
    assert record["grammar"] == "default" and record["language"] == "xx"  # the files' names
    assert record["direction"] == min(record["dev_perplexity"], key=record["dev_perplexity"].get)
    assert "pair „ “" in record["default_grammar"]
    assert "direction" in capsys.readouterr().err
    assert main(["perplexity", "--model", str(out),
                 str(toy_ud / "UD_Toy-New" / "xx_new-ud-test.conllu")]) == 0
    assert "perplexity" in capsys.readouterr().out
    # without dev sentences the default grammar cannot choose a direction: one line, status 2
    assert main(["train", "--train", str(toy_ud / "UD_Toy" / "xx-ud-train.conllu"),
                 "--iterations", "1", "-o", str(tmp_path / "n")]) == 2
    assert "--dev" in capsys.readouterr().err


def test_train_files_named_for_a_language_use_its_rule_file(tmp_path):
    """--train en_ewt-ud-train.conllu (no --lang) trains from grammars/en.rules, as --lang en
    does; files that do not tell one language get the default grammar, and only UD release
    names (with -ud-) tell one: not 'my' of my-train.conllu, 'es' of es-train.conllu."""
    named = tmp_path / "en_ewt-ud-train.conllu"
    named.write_bytes(SAMPLE.read_bytes())
    mine = tmp_path / "my-train.conllu"
    mine.write_bytes(SAMPLE.read_bytes())
    other = tmp_path / "es-train.conllu"
    other.write_bytes(SAMPLE.read_bytes())
    for files, grammar, lang in (([named], "en.rules", "en"),
                                 ([named, SAMPLE], "default", "und"),
                                 ([mine], "default", "und"), ([other], "default", "und")):
        out = tmp_path / f"m-{files[-1].stem}-{len(files)}"
        assert main(["train", "--train", *map(str, files), "--dev", str(SAMPLE),
                     "--iterations", "0", "--jobs", "1", "--lexical", "0", "-o", str(out)]) == 0
        record = json.loads((out / "model.json").read_text(encoding="utf-8"))["record"]
        assert Path(record["grammar"]).name == grammar and record["language"] == lang


def test_sentences_without_sent_id_are_named_by_file_and_number(tmp_path, capsys, toy_ud):
    path = toy_ud / "UD_Toy" / "xx-ud-test.conllu"
    assert [s.name for s in read_one(str(path))] == [f"{path}#1", f"{path}#2"]
    blocks = path.read_text(encoding="utf-8").split("\n\n")
    bad = tmp_path / "UD_Toy" / "xx-ud-test.conllu"
    bad.parent.mkdir()
    bad.write_text("\n\n".join([blocks[0], blocks[1].replace("\t2\tnsubj", "\t9\tnsubj", 1),
                                *blocks[2:]]), encoding="utf-8")
    assert main(["stats", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"(sentence {bad}#2)" in err and "out of range" in err
    # scoring output whose words differ from gold names the gold sentence the same way
    pred = tmp_path / "pred.conllu"
    pred.write_text("\n\n".join([blocks[0], blocks[1].replace("bleibt", "geht"), *blocks[2:]]),
                    encoding="utf-8")
    assert main(["score", "--gold", str(path), str(pred)]) == 2
    assert f"(sentence {path}#2)" in capsys.readouterr().err


def test_learned_rules_of_a_new_language_are_read_over_its_own_dev(tmp_path, capsys, toy_ud):
    """A model of a language without standard splits (xx) tabulates its relation pairs over
    the dev files its model.json records, not over English dev (which a user's own UD release
    may not even hold: that was an error naming en_ewt-ud-dev.conllu); a split it records no
    file for is one line, not English's."""
    out = tmp_path / "m"
    assert main(["train", "--train", "xx-train", "--dev", "xx-dev", "--ud-dir", str(toy_ud),
                 "--iterations", "1", "--jobs", "1", "--lexical", "0", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["rules", "--model", str(out), "--ud-dir", str(toy_ud),
                 "--relations", "nsubj"]) == 0
    assert "mean p_θ over xx dev" in capsys.readouterr().out
    assert main(["rules", "--model", str(out), "--split", "test", "--ud-dir", str(toy_ud)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'xx' has no standard splits" in err
    assert main(["rules", "--model", str(out), "--lang", "en", "--relations", "nsubj"]) == 0
    assert "mean p_θ over en dev" in capsys.readouterr().out


@pytest.mark.parametrize("language", ["und", None])
def test_learned_rules_of_a_model_of_no_one_language_are_read_over_its_own_dev(
        language, tmp_path, capsys):
    """A model whose record says language und (its files' names tell none, or several: a user's
    own release) or none tabulates over the dev files its model.json records, as one of a
    language without standard splits does, not over English dev (which that user's release may
    not hold); if they are gone, one line naming the file and --lang; --lang en still reads en."""
    mine, out = tmp_path / "my-dev.conllu", tmp_path / "m"
    mine.write_bytes(SAMPLE.read_bytes())
    assert main(["train", "--train", str(SAMPLE), "--dev", str(mine), "--iterations", "0",
                 "--jobs", "1", "--lexical", "0", "-o", str(out)]) == 0
    meta = json.loads((out / "model.json").read_text(encoding="utf-8"))
    assert meta["record"]["language"] == "und"
    if language is None:
        del meta["record"]["language"]
        (out / "model.json").write_text(json.dumps(meta), encoding="utf-8")
    capsys.readouterr()
    assert main(["rules", "--model", str(out), "--relations", "nsubj"]) == 0
    assert "mean p_θ over und dev" in capsys.readouterr().out
    mine.unlink()
    assert main(["rules", "--model", str(out), "--relations", "nsubj"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{mine}: the model's dev file" in err and "--lang" in err
    assert main(["rules", "--model", str(out), "--lang", "en", "--relations", "nsubj"]) == 0
    assert "mean p_θ over en dev" in capsys.readouterr().out


def test_learned_rules_read_only_the_sentences_a_model_was_given(tmp_path):
    """A part of a file given to train (a Source's first..last) is recorded with the file, and
    the relation table is read over that part, not over the whole file (one root a sentence)."""
    import fstpunct
    from fstpunct.ud.release import Source
    mine = tmp_path / "mine.conllu"
    mine.write_bytes(SAMPLE.read_bytes() * 2)  # 10 sentences
    model = fstpunct.train(tmp_path / "m", Source(mine, "mine", 2, 4),
                           dev=Source(mine, "mine", first=6), iterations=0,
                           settings=Settings(lexical=0))
    for split, sentences in (("dev", 5), ("train", 3)):
        learned = model.rules(split=split, relations=["root"])
        assert learned.lang == "und" and learned.pairs["root"][0] == sentences
    # a Source of the user's that keeps a standard split's name, with its own first..last
    dev = dataclasses.replace(fstpunct.split("en:dev"), last=3)
    model = fstpunct.train(tmp_path / "m2", Source(mine, "mine", 2, 4), dev=dev, iterations=0,
                           settings=Settings(lexical=0))
    assert model.rules(relations=["root"]).pairs["root"][0] == 3  # not the whole of en dev
