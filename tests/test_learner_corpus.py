"""scripts/learner_corpus.py on hand-made FCE-like scripts and TLE-like trees (no FCE text)."""
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from learner_pairs import PLAIN, RELATIVE, conll
from script_module import load_script

from fstpunct.errors import FstpunctError
from fstpunct.parser import Model as ParserModel
from fstpunct.parser import train as train_parser
from fstpunct.ud.slots import raw_slots
from fstpunct.ud.treebank import read_file


@pytest.fixture(scope="module")
def lc():
    return load_script("learner_corpus")


def test_tokenize(lc):
    text = "I can't go, cannot wait... It's the teachers' room (s/he said) at 10.30 o'clock!"
    assert [t.text for t in lc.tokenize(text)] == [
        "I", "ca", "n't", "go", ",", "can", "not", "wait", "...", "It", "'s", "the",
        "teachers", "'", "room", "(", "s/he", "said", ")", "at", "10.30", "o'clock", "!"]
    assert [t.is_punct for t in lc.tokenize("teachers' room, ok")] == [False, False, False,
                                                                       True, False]
    assert [t.text for t in lc.tokenize("a well-known man", compounds=False)] == [
        "a", "well", "-", "known", "man"]


# Two scripts of two answers each; script A's edits: "like" -> "love" (a word for a word),
# the comma after "actors" removed (UP), a comma added after "too" (MP), "went home" ->
# in script B, "watched a film" -> "saw a movie" (several words: not isomorphic).
A1 = "I don't like the show. The actors, were bad."
A2 = "My friends came too and we went home early."
B1 = "We watched a film."
B2 = "It was long."


def _edits(text, *edits):
    return [[0, [[text.index(anchor) + shift, text.index(anchor) + shift + size, new, code]
                 for anchor, shift, size, new, code in edits]]]


def _fce(folder: Path) -> None:
    folder.mkdir()
    lines = [
        {"id": "TR1*0100*2000*01", "text": A1, "edits": _edits(
            A1, ("like", 0, 4, "love", "RV"), ("s,", 1, 1, "", "UP"))},
        {"id": "TR1*0100*2000*01", "text": A2, "edits": _edits(
            A2, ("too", 3, 0, ",", "MP"))},
        {"id": "TR2*0100*2000*01", "text": B1, "edits": _edits(
            B1, ("watched", 0, 14, "saw a movie", "RV"))},
        {"id": "TR2*0100*2000*01", "text": B2, "edits": []},
    ]
    (folder / "fce-train.json").write_text("\n".join(json.dumps(d) for d in lines) + "\n")
    for split in ("dev", "test"):
        (folder / f"fce-{split}.json").write_text("")


# (XPOS, UPOS, head, deprel) per token
TREES = {
    "0100_2000_6-doc7.xml-0": [("PRP", "PRON", 4, "nsubj"), ("VBP", "AUX", 4, "aux"),
                               ("RB", "PART", 4, "advmod"), ("VB", "VERB", 0, "root"),
                               ("DT", "DET", 6, "det"), ("NN", "NOUN", 4, "obj"),
                               (".", "PUNCT", 4, "punct")],
    "0100_2000_6-doc7.xml-1": [("DT", "DET", 2, "det"), ("NNS", "NOUN", 5, "nsubj"),
                               (",", "PUNCT", 2, "punct"), ("VBD", "AUX", 5, "cop"),
                               ("JJ", "ADJ", 0, "root"), (".", "PUNCT", 5, "punct")],
    "0100_2000_6-doc7.xml-2": [("PRP$", "PRON", 2, "nmod:poss"), ("NNS", "NOUN", 3, "nsubj"),
                               ("VBD", "VERB", 0, "root"), ("RB", "ADV", 3, "advmod"),
                               ("CC", "CCONJ", 7, "cc"), ("PRP", "PRON", 7, "nsubj"),
                               ("VBD", "VERB", 3, "conj"), ("RB", "ADV", 7, "advmod"),
                               ("RB", "ADV", 7, "advmod"), (".", "PUNCT", 3, "punct")],
    "0100_2000_6-doc9.xml-0": [("PRP", "PRON", 2, "nsubj"), ("VBD", "VERB", 0, "root"),
                               ("DT", "DET", 4, "det"), ("NN", "NOUN", 2, "obj"),
                               (".", "PUNCT", 2, "punct")],
}


def _tle(folder: Path) -> None:
    folder.mkdir()
    blocks = []
    for sent_id, rows in TREES.items():
        lines = [f"# sent_id = {sent_id}", "# text = " + " ".join("_" * len(rows))]
        lines += ["\t".join([str(k), "_", "_", upos, xpos, "_", str(h), rel, "_", "_"])
                  for k, (xpos, upos, h, rel) in enumerate(rows, 1)]
        blocks.append("\n".join(lines) + "\n")
    (folder / "en_esl-ud-train.conllu").write_text("\n".join(blocks) + "\n")
    for split in ("dev", "test"):
        (folder / f"en_esl-ud-{split}.conllu").write_text("")


def test_build(lc, tmp_path):
    _fce(tmp_path / "fce")
    _tle(tmp_path / "tle")
    ewt = tmp_path / "ewt.conllu"
    ewt.write_text("".join("1\tthe\t_\tDET\tDT\t_\t0\troot\t_\t_\n\n" for _ in range(3)))
    report = lc.build(tmp_path / "tle", tmp_path / "fce", ewt, tmp_path / "out")["train"]
    assert (report["TLE sentences"], report["aligned"], report["verified"],
            report["isomorphic"], report["with a punctuation edit"]) == (4, 4, 4, 3, 2)
    assert report["not isomorphic"] == {"an edit adds, removes or changes several words": 1}
    assert report["punctuation edits by code"] == {"UP": 1, "MP": 1}
    esl = list(read_file(tmp_path / "out" / "en_esl-ud-train.conllu"))
    assert [s.comments[1][9:] for s in esl] == ["I don't like the show.", "The actors, were bad.",
                                     "My friends came too and we went home early.",
                                     "We watched a film."]
    assert [w.form for w in esl[0].words] == ["I", "do", "n't", "like", "the", "show", "."]
    assert [w.space_after for w in esl[0].words][:3] == [True, False, True]
    cesl = {s.sent_id: s for s in read_file(tmp_path / "out" / "en_cesl-ud-train.conllu")}
    assert sorted(cesl) == ["0100_2000_6-doc7.xml-0", "0100_2000_6-doc7.xml-1",
                            "0100_2000_6-doc7.xml-2"]
    first = cesl["0100_2000_6-doc7.xml-0"]
    assert first.comments[1] == "# text = I don't love the show."
    assert first.words[3].form == "love"
    second = cesl["0100_2000_6-doc7.xml-1"]
    assert second.comments[1] == "# text = The actors were bad."
    assert raw_slots(second)[2] == ()
    assert "# fce_punct_edits = 2:UP" in second.comments
    assert [w.head for w in second.words] == [2, 4, 4, 0, 4]
    third = cesl["0100_2000_6-doc7.xml-2"]
    assert third.comments[1] == "# text = My friends came too, and we went home early."
    comma = third.words[4]
    assert (comma.form, comma.xpos, comma.head) == (",", ",", 8)  # to the conjunct "went"
    assert "# fce_punct_edits = 4:MP" in third.comments
    # the non-isomorphic sentence keeps its words: no punctuation edit, a pair all the same
    assert (report["punctuation-only"], report["punctuation-only with a punctuation edit"]
            ) == (1, 0)
    pesl = list(read_file(tmp_path / "out" / "en_pesl-ud-train.conllu"))
    assert [(s.sent_id, s.comments[1]) for s in pesl] == [("0100_2000_6-doc9.xml-0",
                                                           "# text = We watched a film.")]


def _placed(lc, text: str, *edits):
    """A one-sentence script with ``edits`` (anchor, shift, size, correction, code) and a flat
    TLE tree of its tokens, matched at its start."""
    script = lc.Script("TR9*0100*2000*01", "train", text, [
        (text.index(a) + shift, text.index(a) + shift + size, new, code)
        for a, shift, size, new, code in edits])
    script.prepare()
    tokens = script.views[0].tokens
    first = next(k for k, t in enumerate(tokens) if not t.is_punct) + 1
    rows = [[str(k), "_", "_", "PUNCT" if t.is_punct else "X", "." if t.is_punct else "NN",
             "_", "0" if k == first else str(first), "punct" if t.is_punct else "dep", "_",
             "_"] for k, t in enumerate(tokens, 1)]
    tle = lc.TleSentence("train", ["# sent_id = d-1", "# text = x"], rows)
    return lc.Match(script, script.views[0], 0, 1.0, True), tle


def test_punctuation_only_edits(lc):
    # a comma splice and a missing comma mended; a word replaced elsewhere is not applied,
    # nor is the capital of the corrected ". We" (the learner's forms stay)
    match, tle = _placed(lc, "I came, we ate well then it rained.",
                         (", we", 0, 4, ". We", "RP"), ("well", 0, 4, "good", "RV"),
                         ("then", 4, 0, ",", "MP"))
    c = lc.correct_punctuation(match, tle)
    assert c.text == "I came. we ate well then, it rained."
    assert c.words == ["I", "came", "we", "ate", "well", "then", "it", "rained"]
    assert [[f for f, _ in s] for s in c.slots] == [[], [], ["."], [], [], [], [","], [], ["."]]
    assert c.codes == [(2, "RP"), (6, "MP")]
    lines = lc.corrected_lines(tle, c)
    assert [ln.split("\t")[1] for ln in lines if not ln.startswith("#")] == [
        "I", "came", ".", "we", "ate", "well", "then", ",", "it", "rained", "."]
    assert "# fce_punct_edits = 2:RP 6:MP" in lines
    # a word edit that changes punctuation itself
    match, tle = _placed(lc, "We sang, and we danced.", (", and", 0, 5, ".", "RP"))
    assert lc.correct_punctuation(match, tle).reason == "a word edit changes punctuation"
    # a comma dropped where a conjunction is inserted: the mark depends on the word edit
    match, tle = _placed(lc, "We sang, danced and slept.", (",", 0, 1, "", "UP"),
                         ("danced", 0, 0, "and ", "MC"))
    assert lc.correct_punctuation(match, tle).reason == "a punctuation edit beside a word edit"
    # the same comma with the word edit two words away is applied
    match, tle = _placed(lc, "We sang, danced and slept.", (",", 0, 1, "", "UP"),
                         ("slept", 0, 5, "rested", "RV"))
    assert lc.correct_punctuation(match, tle).text == "We sang danced and slept."
    # an error marked without its correction, over punctuation: its right marks are unknown
    match, tle = _placed(lc, "We sang, danced and slept.", (", danced", 0, 8, None, "X"))
    assert lc.correct_punctuation(match, tle).reason == (
        "a detection-only edit spans punctuation")
    # over words only, it is a word edit (the comma away from it is applied)
    match, tle = _placed(lc, "We sang, danced and slept.", (",", 0, 1, "", "UP"),
                         ("slept", 0, 5, None, "X"))
    assert lc.correct_punctuation(match, tle).text == "We sang danced and slept."


def test_detection_only_edits_are_never_applied(lc):
    # correct() applies what _edits_in returns without detections: a detection-only edit is
    # either the reason the sentence is not isomorphic or gives way to its nested corrections
    match, tle = _placed(lc, "We sang, danced and slept.", ("slept", 0, 5, None, "X"))
    assert lc.correct(match, tle).reason == "an edit marks an error without a correction"
    match, tle = _placed(lc, "We sang, danced and slept.", ("sang, danced", 0, 12, None, "X"),
                         (",", 0, 1, "", "UP"))
    edits, reason = lc._edits_in(match.script, 0, len(match.script.text))
    assert reason == "" and [e[2] for e in edits] == [""]
    assert lc.correct(match, tle).text == "We sang danced and slept."


def _flat(forms, punct):
    """A stand-in for tagger and parser: every token on the first word, the root."""
    first = punct.index(False) + 1
    return [("PUNCT" if p else "X", 0 if k == first else first, "punct" if p else
             "root" if k == first else "dep") for k, p in enumerate(punct, 1)]


def test_sentences_outside_the_tle(lc, tmp_path):
    _fce(tmp_path / "fce")
    _tle(tmp_path / "tle")
    ewt = tmp_path / "ewt.conllu"
    ewt.write_text("".join("1\tthe\t_\tDET\tDT\t_\t0\troot\t_\t_\n\n" for _ in range(3)))
    report = lc.build(tmp_path / "tle", tmp_path / "fce", ewt, tmp_path / "out", _flat)
    # the TLE's own outputs are those of a run without the parser
    assert report["train"]["isomorphic"] == 3
    assert report["documents"] == {"TLE train -> fce-train": 2}
    # script B's second sentence is the only one outside the TLE
    extra = report["extra"]["train"]
    assert (extra["FCE sentences"], extra["in the TLE"], extra["extra sentences"],
            extra["of scripts with TLE sentences"], extra["parsed"], extra["isomorphic"]
            ) == (5, 4, 1, 1, 1, 1)
    assert report["extra"]["dev"]["FCE sentences"] == 0
    (sent,) = read_file(tmp_path / "out" / "en_xesl-ud-train.conllu")
    assert sent.sent_id == "TR2*0100*2000*01-1"
    assert sent.comments[1:] == ["# text = It was long.", "# fce_document = TR2*0100*2000*01",
                                 "# fce_split = train",
                                 "# tle_document = 0100_2000_6-doc9.xml"]
    assert [(w.form, w.upos, w.xpos, w.head) for w in sent.words] == [
        ("It", "X", "_", 0), ("was", "X", "_", 1), ("long", "X", "_", 1), (".", "PUNCT", ".", 1)]
    (twin,) = read_file(tmp_path / "out" / "en_xcesl-ud-train.conllu")
    assert twin.sent_id == sent.sent_id and [w.form for w in twin.words] == ["It", "was",
                                                                            "long", "."]


def test_outside_sentences_that_cannot_be_analysed_are_counted(lc, tmp_path):
    script = lc.Script("TR9*0100*2000*01", "train", "Fine. ... I went home.", [])
    script.prepare()
    bounds = list(script.views[0].sentences())
    assert len(bounds) == 3
    assert lc._analysed(script, *bounds[1], 1, None, _flat) == (
        None, "no word (punctuation only)")

    def labels_a_word_punct(forms, punct):
        return [(u, h, "punct") for u, h, _ in _flat(forms, punct)]

    assert lc._analysed(script, *bounds[2], 2, None, labels_a_word_punct)[1] == (
        "a word tagged PUNCT or labelled punct by the tagger and parser")

    def fails(forms, punct):
        raise FstpunctError("no tree")

    assert lc._analysed(script, *bounds[2], 2, None, fails) == (None, "not parsed: no tree")
    sent, reason = lc._analysed(script, *bounds[2], 2, None, _flat)
    assert reason == "" and [r[1] for r in sent.rows] == ["I", "went", "home", "."]
    assert "# tle_document" not in " ".join(sent.comments)


def test_a_folder_that_is_no_parser_or_tagger_is_one_line(lc, tmp_path, monkeypatch, capsys):
    # main's --parser / --tagger: a folder without the model's files (exit 2, no traceback)
    _fce(tmp_path / "fce")
    _tle(tmp_path / "tle")
    ewt = tmp_path / "ewt.conllu"
    ewt.write_text("1\tthe\t_\tDET\tDT\t_\t0\troot\t_\t_\n\n")
    (tmp_path / "empty").mkdir()
    monkeypatch.setattr("sys.argv", [
        "learner_corpus.py", "--tle", str(tmp_path / "tle"), "--fce", str(tmp_path / "fce"),
        "--ewt", str(ewt), "-o", str(tmp_path / "out"), "--parser", str(tmp_path / "empty"),
        "--tagger", str(tmp_path / "empty")])
    with pytest.raises(SystemExit) as stop:
        lc.main()
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "not a parser model" in err
    assert len(err.strip().splitlines()) == 1
    # a tokens-mode parser, and the empty folder as the tagger
    monkeypatch.setattr(lc.ParserModel, "load", lambda folder: SimpleNamespace(mode="tokens"))
    with pytest.raises(SystemExit) as stop:
        lc.main()
    err = capsys.readouterr().err
    assert stop.value.code == 2 and str(tmp_path / "empty") in err
    assert len(err.strip().splitlines()) == 1


def test_the_tagger_is_trained_once_and_parsed_by_tags_the_words_only(lc, tmp_path, capsys):
    data, folder = tmp_path / "learner", tmp_path / "tagger"
    data.mkdir()
    with pytest.raises(SystemExit) as stop:  # no learner files yet: nothing to train on
        lc._tagger(folder, data)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "en_esl-ud-train.conllu: not found" in err
    assert err.count("\n") == 1 and not folder.exists()
    text = "".join(conll(rows, f"d-{k}") for k in range(4) for rows in (PLAIN, RELATIVE))
    for split in ("train", "dev"):
        (data / f"en_esl-ud-{split}.conllu").write_text(text, encoding="utf-8")
    tagger = lc._tagger(folder, data)  # trained and saved
    assert folder.is_dir() and "tagger: " in capsys.readouterr().err
    again = lc._tagger(folder, data)  # loaded: not trained again
    assert capsys.readouterr().err == ""
    words = ["Peter", "who", "runs", "is", "here"]
    assert again.tag(words, punct=False) == tagger.tag(words, punct=False)
    sents = list(read_file(data / "en_esl-ud-train.conllu"))
    train_parser(sents, sents, "tokens", 1, tmp_path / "parser", epochs=1, progress=False,
                 log=lambda m: None)
    analyse = lc.parsed_by(tagger, ParserModel.load(tmp_path / "parser"))
    forms = ["Peter", ",", "who", "runs", ",", "is", "here", "."]
    punct = [f in ",." for f in forms]
    arcs = analyse(forms, punct)
    tags = iter(tagger.tag([f for f, p in zip(forms, punct) if not p], punct=False))
    assert [u for u, _, _ in arcs] == ["PUNCT" if p else next(tags) for p in punct]
    assert len(arcs) == 8 and all(0 <= h <= 8 for _, h, _ in arcs)
    assert sum(h == 0 for _, h, _ in arcs) == 1
