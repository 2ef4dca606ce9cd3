"""CoNLL-U reading: lossless round trip, agreement with `conllu`, clear errors for bad input."""
import dataclasses
import io
import os
import threading
from pathlib import Path

import conllu
import pytest
from conftest import treebank

import fstpunct
from fstpunct.cli.main import main
from fstpunct.errors import ConlluError
from fstpunct.ud.release import resolve
from fstpunct.ud.treebank import Word, read_conllu, read_conllu_reference, read_file, with_arcs

EDGE = Path(__file__).parent / "data" / "edge.conllu"


def test_round_trip_is_byte_identical():
    text = EDGE.read_text(encoding="utf-8")
    assert "".join(s.text() for s in read_file(EDGE)) == text


def test_round_trip_of_a_real_treebank_file():
    path = treebank("zh_gsd", "test").path
    text = path.read_text(encoding="utf-8")
    assert "".join(s.text() for s in read_file(path)) == text


def test_fields_agree_with_the_conllu_library():
    path = treebank("es_gsd", "test").path
    ours = list(read_file(path))
    theirs = conllu.parse(path.read_text(encoding="utf-8"))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        words = [t for t in b if isinstance(t["id"], int)]
        assert [(w.form, w.upos, w.head, w.deprel) for w in a.words] == \
               [(t["form"], t["upos"], t["head"], t["deprel"]) for t in words]
        assert a.sent_id == b.metadata.get("sent_id")


def test_standard_splits_have_the_documented_sizes():
    sizes = {(lang, split): sum(1 for _ in treebank(lang, split).sentences())
             for lang, split in [("es", "dev"), ("es", "test"), ("ar", "train"), ("zh", "train"),
                                 ("zh", "test"), ("de", "dev")]}
    assert sizes == {("es", "dev"): 213, ("es", "test"): 214, ("ar", "train"): 800,
                     ("zh", "train"): 3997, ("zh", "test"): 500, ("de", "dev"): 100}


def test_resolve_specs():
    for name, split in (("en", "train"), ("en", "dev"), ("en", "test"), ("hi_pud", "test")):
        treebank(name, split)
    assert [s.name for s in resolve("en")] == ["en train", "en dev", "en test"]
    assert [s.name for s in resolve("hi_pud")] == ["hi_pud test"]
    assert [s.name for s in resolve("en_ewt-dev")] == ["en_ewt dev"]


def test_a_train_file_in_parts_is_every_part(tmp_path, capsys):
    """A large treebank ships its train file in parts (UD_Czech-PDT cs_pdt-ud-train-c.conllu):
    the treebank's code and its train split name every part, in order, not dev alone."""
    folder = tmp_path / "UD_Testish-Big"
    folder.mkdir()
    sample = (Path(__file__).parents[1] / "data" / "sample.conllu").read_text(encoding="utf-8")
    for part in ("dev", "train-b", "train-a"):
        (folder / f"xx_big-ud-{part}.conllu").write_text(sample, encoding="utf-8")
    parts = ["xx_big train-a", "xx_big train-b"]
    assert [s.name for s in resolve("xx_big", tmp_path)] == [*parts, "xx_big dev"]
    assert [s.name for s in resolve("xx_big-train", tmp_path)] == parts
    assert [s.name for s in resolve("xx_big-train-b", tmp_path)] == ["xx_big train-b"]
    assert main(["stats", "--ud-dir", str(tmp_path), "xx_big"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [" ".join(row.split()[:2]) for row in rows] == [*parts, "xx_big dev"]
    assert main(["train", "--ud-dir", str(tmp_path), "--train", "xx_big-train",
                 "-o", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'xx_big-train' names 2 files (xx_big train-a, xx_big " \
        "train-b); name its parts: xx_big-train-a xx_big-train-b" in err


@pytest.mark.parametrize("command", [["decode", "--model", "en"], ["stats"], ["score", "--gold"]])
def test_a_folder_as_input_is_named_as_one(tmp_path, capsys, monkeypatch, command):
    """It used to be looked up as a treebank code: 'no UD folder: pass --ud-dir …' or 'is
    neither a file, a language … nor a treebank code'."""
    monkeypatch.delenv("FSTPUNCT_UD_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus").mkdir()
    assert main([*command, "corpus"]) == 2
    assert capsys.readouterr().err.endswith(": error: corpus: is a folder; name a CoNLL-U "
                                            "file, a split ('en:dev') or a treebank code\n")


def test_a_ud_folder_that_is_not_one_names_where_it_came_from(tmp_path, capsys, monkeypatch):
    """A stale $FSTPUNCT_UD_DIR (or $UD_DIR) said 'UD folder X does not exist', as if the user
    had typed X; a file there said the same."""
    (tmp_path / "file").write_text("x", encoding="utf-8")
    monkeypatch.delenv("UD_DIR", raising=False)
    for variable in ("FSTPUNCT_UD_DIR", "UD_DIR"):
        monkeypatch.setenv(variable, str(tmp_path / "old"))
        assert main(["decode", "en:dev"]) == 2
        assert capsys.readouterr().err == (f"fstpunct decode: error: ${variable}: UD folder "
                                           f"{tmp_path / 'old'} does not exist\n")
        monkeypatch.delenv(variable)
    assert main(["stats", "--ud-dir", str(tmp_path / "file"), "en:dev"]) == 2
    assert capsys.readouterr().err == ("fstpunct stats: error: ud_dir (--ud-dir): UD folder "
                                       f"{tmp_path / 'file'} is not a folder\n")


GOOD = ("# sent_id = s1\n1\tA\ta\tDET\t_\t_\t2\tdet\t_\t_\n"
        "2\tdog\tdog\tNOUN\t_\t_\t0\troot\t_\t_\n\n")


@pytest.mark.parametrize("bad, line, words", [
    (GOOD.replace("\tdet\t_\t_", "\tdet\t_"), 2, "expected 10 tab-separated fields, found 9"),
    (GOOD.replace("\t2\tdet", "\tx\tdet"), 2, "HEAD must be 0 or a word ID"),
    (GOOD.replace("\t2\tdet", "\t7\tdet"), 2, "HEAD 7 is out of range"),
    (GOOD.replace("\t0\troot", "\t1\troot"), 2, "no root"),
    (GOOD.replace("\t2\tdet", "\t1\tdet"), 2, "its own head"),
    ("# sent_id = s1\n1\tA\ta\tX\t_\t_\t2\tdep\t_\t_\n2\tB\tb\tX\t_\t_\t3\tdep\t_\t_\n"
     "3\tC\tc\tX\t_\t_\t2\tdep\t_\t_\n4\tD\td\tX\t_\t_\t0\troot\t_\t_\n\n", 3, "cycle"),
])
def test_malformed_input_names_file_line_and_sentence(bad, line, words):
    with pytest.raises(ConlluError) as e:
        list(read_conllu(io.StringIO(bad), "bad.conllu"))
    assert f"bad.conllu:{line}" in str(e.value) and "sent_id s1" in str(e.value)
    assert words in str(e.value)


@pytest.mark.parametrize("command", [["restore", "--model", "en"], ["decode", "--model", "en"],
                                     ["normalise", "--model", "en"]])
def test_plain_text_read_as_conllu_says_text(command, tmp_path, capsys):
    """A text file given without --text (the README's first example has it) said only
    'expected 10 tab-separated fields, found 1'; a line of fields separated by spaces says
    what it is instead."""
    text = tmp_path / "text.txt"
    text.write_text("we bought apples pears and plums\n", encoding="utf-8")
    assert main([*command, str(text)]) == 2
    assert capsys.readouterr().err.endswith(
        f"{text}:1 (sentence {text}#1): expected 10 tab-separated fields, found 1 (plain text? "
        "decode and restore read it with --text, the API with text=True)\n")
    spaced = tmp_path / "spaced.conllu"
    spaced.write_text(GOOD.replace("\t", " "), encoding="utf-8")
    assert main([*command, str(spaced)]) == 2
    assert capsys.readouterr().err.endswith(
        "expected 10 tab-separated fields, found 1 (fields separated by spaces? CoNLL-U "
        "separates them by tabs)\n")


@pytest.mark.parametrize("reader", [read_conllu, read_conllu_reference])
@pytest.mark.parametrize("line, spaced", [
    ("3 men went to the shop and bought some bread today", False),  # a numeral, no HEAD
    ("1-2 cups of flour and some milk go into the bowl", False),  # a range, HEAD 'milk'
    ("1 A a DET _ _ 2 det _ _", True),
    ("1 A a DET _ _ _ _ _ _", True),  # no tree yet
    ("1-2 don't _ _ _ _ _ _ _ _", True),
    ("1.1 A a DET _ _ _ _ _ _", True),
])
def test_a_line_without_a_tab_is_told_spaced_conllu_or_plain_text(reader, line, spaced):
    """Only a line shaped like CoNLL-U (an ID, and a HEAD or '_' seventh) is called CoNLL-U
    with spaces; ten words of text beginning with a numeral were too."""
    with pytest.raises(ConlluError) as e:
        list(reader(io.StringIO(line + "\n\n"), "in.conllu"))
    hint = "(fields separated by spaces?" if spaced else "(plain text?"
    assert hint in str(e.value)


def test_plain_text_given_to_the_api_as_conllu_says_text():
    with pytest.raises(ConlluError, match=r"found 1 \(plain text\? .* text=True\)$"):
        fstpunct.load("en").restore("we bought apples\nand pears\n")


def test_cli_reports_bad_input_in_one_line_with_status_2(tmp_path, capsys):
    bad = tmp_path / "bad.conllu"
    bad.write_text(GOOD.replace("\t2\tdet", "\t9\tdet"), encoding="utf-8")
    assert main(["stats", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{bad}:2" in err and "out of range" in err
    assert main(["stats", str(tmp_path / "missing.conllu")]) == 2
    assert capsys.readouterr().err == \
        f"fstpunct stats: error: {tmp_path / 'missing.conllu'}: no such file\n"


@pytest.mark.usefixtures("ud")  # (a name is looked up among the release's languages)
def test_cli_says_a_name_is_neither_a_file_nor_a_split(capsys):
    assert main(["stats", "xx"]) == 2
    assert "neither a file, a language" in capsys.readouterr().err


def test_an_existing_path_that_is_not_a_regular_file_is_read_as_a_file(tmp_path, capsys):
    """A FIFO (as ``<(...)`` and ``/dev/stdin`` are) is an input file, not a split name."""
    assert [s.name for s in resolve("/dev/stdin")] == ["/dev/stdin"]
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w", encoding="utf-8") as f:
            f.write(EDGE.read_text(encoding="utf-8"))

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        assert main(["stats", str(fifo)]) == 0
    finally:
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # frees a writer still waiting
        writer.join(10)
    out = capsys.readouterr().out
    assert str(fifo) in out and f"{len(list(read_file(EDGE)))}" in out


def test_stats_match_the_shared_readme(capsys):
    for name, split in (("en_ewt", "test"), ("es_gsd", "dev"), ("hi_pud", "test"),
                        ("zh", "train"), ("de_pud", "test")):
        treebank(name, split)
    assert main(["stats", "--tsv", "en_ewt-test", "es_gsd-dev", "hi_pud", "zh:train",
                 "de_pud"]) == 0
    rows = [r.split("\t") for r in capsys.readouterr().out.strip().split("\n")]
    header, body = rows[0], {r[0]: dict(zip(rows[0], r)) for r in rows[1:]}
    assert header[:2] == ["file", "sentences"]
    expected = {  # shared/ud/README.md: sentences, words, % punct, non-projective, types, slots
        "en_ewt test": ("2077", "25094", "12.3", "23", "44", "83"),
        "es_gsd dev": ("1400", "37154", "10.9", "97", "20", "47"),
        "hi_pud test": ("1000", "23829", "9.6", "305", "18", "38"),
        "zh train": ("3997", "98608", "13.8", "4", "37", "80"),  # UD 1.4, old layout
        "de_pud test": ("1000", "21332", "13.0", "131", "14", "28"),
    }
    for name, values in expected.items():
        r = body[name]
        assert (r["sentences"], r["words"], r["% punct"], r["non-projective"],
                r["punct types"], r["slot strings"]) == values
    assert body["zh train"]["omitted"] == "3"  # the paper's Table 2 "#Omit" for Chinese


def test_with_arc_is_replace_of_head_and_relation():
    """Every field but head and deprel copied (a field added to Word must be added there: the
    field list is pinned, so a new field fails here even when it has a default)."""
    assert [f.name for f in dataclasses.fields(Word)] == [
        "id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "misc", "lineno"]
    w = next(read_conllu(io.StringIO("1\tdogs\tdog\tNOUN\tNNS\tNumber=Plur\t0\troot\t_\t"
                                     "SpaceAfter=No\n\n"))).words[0]
    assert w.with_arc(7, "obj") == dataclasses.replace(w, head=7, deprel="obj")
    assert (w.head, w.deprel) == (0, "root")


def test_a_comment_is_read_by_its_key():
    """Sentence.comment: the value of ``# key = value`` (spacing as the reader allows), None
    without one; a key is not matched by a longer one it begins (text, text_en)."""
    sent = next(read_conllu(io.StringIO("# text_en = the dogs\n#text=dogs\n# sent_id = s1\n"
                                        "1\tdogs\tdog\tNOUN\tNNS\t_\t0\troot\t_\t_\n\n")))
    assert sent.comment("text") == "dogs" and sent.comment("text_en") == "the dogs"
    assert sent.comment("sent_id") == "s1" and sent.comment("newdoc") is None


WITH_RANGE = ("# sent_id = r1\n# text = don't go\n"
              "1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
              "1\tdo\tdo\tAUX\t_\t_\t3\taux\t3:aux\t_\n"
              "2\tn't\tnot\tPART\t_\t_\t3\tadvmod\t3:advmod\t_\n"
              "3\tgo\tgo\tVERB\t_\t_\t0\troot\t0:root\t_\n\n")


def test_with_arcs_rewrites_the_given_words_lines_and_words_together():
    """The words of ``arcs`` get their HEAD and DEPREL in the line and the word; the range
    line, DEPS and the other words stay; the input sentence does not change. An ID of no word
    (were: ignored) is a ValueError naming the sentence."""
    sent = next(read_conllu(io.StringIO(WITH_RANGE)))
    new = with_arcs(sent, {2: (1, "advmod:neg")})
    assert new.text() == WITH_RANGE.replace("\t3\tadvmod\t3:advmod", "\t1\tadvmod:neg\t3:advmod")
    assert [(w.head, w.deprel) for w in new.words] == [(3, "aux"), (1, "advmod:neg"), (0, "root")]
    assert new.words[0] is sent.words[0] and sent.text() == WITH_RANGE
    same = with_arcs(sent, {w.id: (w.head, w.deprel) for w in sent.words})
    assert same.text() == WITH_RANGE
    with pytest.raises(ValueError, match=r"^<stdin>:1 \(sent_id r1\): arcs of no word of the "
                       r"sentence \(IDs 0, 4\)$"):
        with_arcs(sent, {4: (1, "dep"), 2: (1, "advmod"), 0: (1, "root")})
