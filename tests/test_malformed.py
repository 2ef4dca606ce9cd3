"""Every malformed input is one line on stderr and exit 2, naming file, line and sentence, in
every command that reads CoNLL-U; the accepted oddities (BOM, CRLF, no final empty line) pass
every command. The policy per case is README's "Guarantees" table."""
import functools
import sys
from pathlib import Path

import pytest
from conftest import treebank

from fstpunct.cli.main import build_parser, main
from fstpunct.model.store import load_model
from fstpunct.parser.tagger import depunctuated, train_tagger
from fstpunct.ud.treebank import read_file

ROOT = Path(__file__).parents[1]
SAMPLE = ROOT / "data" / "sample.conllu"
GRAMMAR = ROOT / "grammars" / "en.rules"

GOOD = ("# sent_id = good\n# text = The dog barks.\n"
        "1\tThe\tthe\tDET\tDT\t_\t2\tdet\t2:det\t_\n"
        "2\tdog\tdog\tNOUN\tNN\tNumber=Sing\t3\tnsubj\t3:nsubj\t_\n"
        "3\tbarks\tbark\tVERB\tVBZ\t_\t0\troot\t0:root\tSpaceAfter=No\n"
        "4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t3:punct\t_\n\n")
BAD = GOOD.replace("sent_id = good", "sent_id = bad")
OFFSET = GOOD.count("\n")  # the bad sentence follows a good one
W1, W2, W3, W4 = BAD.splitlines()[2:6]  # its word lines: lines 3..6 of the sentence


def fields(line, **changes):
    f = line.split("\t")
    for k, v in changes.items():
        f["id form lemma upos xpos feats head deprel deps misc".split().index(k)] = v
    return "\t".join(f)


def sub(old, new):
    """The bad sentence with one line (or text) replaced."""
    assert old in BAD
    return BAD.replace(old, new, 1)


def after(line, extra):
    """The bad sentence with ``extra`` inserted after ``line``."""
    return sub(line, f"{line}\n{extra}")


MWT = "2-3\tdogbarks\t_\t_\t_\t_\t_\t_\t_\t_"
# (name, bad sentence text, 1-based line of the error in it, words of the message); the
# sentence comes after GOOD in the file. Names ending in '*' have no sent_id: the message names
# them FILE#2. HEAD '_' and the shape of the tree (roots, cycles, own head) are not errors for
# `parse`, which replaces HEAD and DEPREL (PARSE_ACCEPTS).
SENTENCE_CASES = [
    ("9 fields", sub(W1, W1.rsplit("\t", 1)[0]), 3, "expected 10 tab-separated fields, found 9"),
    ("11 fields", sub(W1, W1 + "\t_"), 3, "found 11"),
    ("spaces for tabs", sub(W2, W2.replace("\t", " ")), 4, "found 1"),
    ("empty FORM", sub(W1, fields(W1, form="")), 3, "FORM is empty"),
    ("space-padded LEMMA", sub(W1, fields(W1, lemma=" the")), 3, "begins or ends with a space"),
    ("ID a", sub(W1, fields(W1, id="a")), 3, "ID 'a' is not"),
    ("ID 01", sub(W1, fields(W1, id="01")), 3, "ID '01' is not"),
    ("ID 0", sub(W1, fields(W1, id="0")), 3, "ID '0' is not"),
    ("ID -1*", sub(W1, fields(W1, id="-1")), 3, "ID '-1' is not"),
    ("ID fullwidth 1", sub(W1, fields(W1, id="１")), 3, "is not a word"),
    ("ID 1.0", sub(W1, fields(W1, id="1.0")), 3, "is not a word"),
    ("duplicate ID", sub(W2, fields(W2, id="1")), 4, "expected 2, found 1"),
    ("unordered IDs*", sub(W2 + "\n" + W3, fields(W3, head="0") + "\n" + fields(W2, head="3")),
     4, "expected 2, found 3"),
    ("gap in IDs", sub(W4, fields(W4, id="5")), 6, "expected 4, found 5"),
    ("HEAD x", sub(W1, fields(W1, head="x")), 3, "HEAD must be 0 or a word ID"),
    ("HEAD superscript 2", sub(W1, fields(W1, head="²")), 3, "found '²'"),
    ("HEAD Arabic-Indic 3*", sub(W1, fields(W1, head="٣")), 3, "found '٣'"),
    ("HEAD 03", sub(W1, fields(W1, head="03")), 3, "found '03'"),
    ("HEAD -1", sub(W1, fields(W1, head="-1")), 3, "found '-1'"),
    ("HEAD of 5000 digits", sub(W1, fields(W1, head="9" * 5000)), 3, "out of range"),
    ("HEAD out of range*", sub(W1, fields(W1, head="9")), 3, "HEAD 9 is out of range"),
    ("HEAD _", sub(W1, fields(W1, head="_")), 3, "found '_'"),
    ("HEAD empty node", sub(W1, fields(W1, head="2.1")), 3, "found '2.1'"),
    ("own head", sub(W2, fields(W2, head="2")), 4, "its own head"),
    ("cycle", sub(W1, fields(W1, head="2")).replace(W2, fields(W2, head="1")), 3, "cycle"),
    ("no root*", sub(W3, fields(W3, head="4")).replace(W4, fields(W4, head="2")), 3, "no root"),
    ("two roots", sub(W4, fields(W4, head="0")), 6, "2 roots"),
    ("range 2-1", sub(W2, fields(MWT, id="2-1") + "\n" + W2), 4, "must end after it starts"),
    ("range 4-9", sub(W4, fields(MWT, id="4-9") + "\n" + W4), 6, "the sentence has 4 words"),
    ("range 2-2*", sub(W2, fields(MWT, id="2-2") + "\n" + W2), 4, "must end after it starts"),
    ("range after its word", after(W2, MWT), 5, "must come just before word 2"),
    ("overlapping ranges", sub(W2, MWT + "\n" + W2).replace(W1, fields(MWT, id="1-2") + "\n" + W1),
     5, "overlaps"),
    ("range with a HEAD", sub(W2, fields(MWT, head="1") + "\n" + W2), 4, "must have '_' as HEAD"),
    ("range 1-2-3", sub(W1, fields(MWT, id="1-2-3") + "\n" + W1), 3, "is not a word"),
    ("empty node 9.1", after(W4, "9.1\tx\tx\tX\t_\t_\t_\t_\t4:dep\t_"), 7, "empty node 9.1"),
    ("empty node 1.2 first*", after(W1, "1.2\tx\tx\tX\t_\t_\t_\t_\t1:dep\t_"), 4, "expected 1.1"),
    ("empty node before its word", after(W1, "2.1\tx\tx\tX\t_\t_\t_\t_\t1:dep\t_"), 4,
     "empty node 2.1 out of place"),
    ("empty node twice", after(W1, "1.1\tx\tx\tX\t_\t_\t_\t_\t1:dep\t_\n"
                                   "1.1\tx\tx\tX\t_\t_\t_\t_\t1:dep\t_"), 5, "expected 1.2"),
    ("empty node 0.0", after(W1, "0.0\tx\tx\tX\t_\t_\t_\t_\t1:dep\t_"), 4, "is not a word"),
    ("empty node with a HEAD", after(W1, "1.1\tx\tx\tX\t_\t_\t1\tdep\t1:dep\t_"), 4,
     "must have '_' as HEAD"),
    ("DEPS without colon", sub(W4, fields(W4, deps="3-punct")), 6, "DEPS '3-punct' is not"),
    ("DEPS unknown head*", sub(W4, fields(W4, deps="9:punct")), 6, "DEPS head 9 is not a node"),
    ("DEPS missing empty node", sub(W4, fields(W4, deps="1.1:punct")), 6, "DEPS head 1.1"),
    ("DEPS empty item", sub(W4, fields(W4, deps="3:punct|")), 6, "DEPS '3:punct|' is not"),
    ("DEPS no relation", sub(W4, fields(W4, deps="3:")), 6, "DEPS '3:' is not"),
    ("DEPS with a space", sub(W4, fields(W4, deps="3:pu nct")), 6, "is not '_' or HEAD:REL"),
    ("MISC trailing bar", sub(W3, fields(W3, misc="SpaceAfter=No|")), 5, "MISC 'SpaceAfter=No|'"),
    ("MISC empty item*", sub(W3, fields(W3, misc="a||b")), 5, "has an empty item"),
    ("FEATS without =", sub(W2, fields(W2, feats="Number")), 4, "FEATS 'Number' is not"),
    ("FEATS trailing bar", sub(W2, fields(W2, feats="Number=Sing|")), 4, "FEATS 'Number=Sing|'"),
    ("comment among tokens", after(W2, "# note"), 5, "comment line inside"),
    ("comments only", "# sent_id = bad\n# text = x\n\n", 1, "comments but no token lines"),
    ("line of spaces", after(W2, "   "), 5, "line of only spaces"),
    ("line of a tab*", after(W2, "\t"), 5, "line of only spaces"),
    ("invalid UTF-8", sub(W2, fields(W2, form="d\udcffg")), 4, "not UTF-8 (byte 0xFF)"),
    ("NUL byte", sub(W2, fields(W2, form="d\x00g")), 4, "NUL byte"),
    ("CR inside a line*", sub(W2, fields(W2, form="d\rg")), 4, "CR inside a line"),
    ("NUL beside non-ASCII", sub(W2, fields(W2, form="dö\x00g")), 4, "NUL byte"),
    ("CR beside non-ASCII", sub(W2, fields(W2, form="dö\rg")), 4, "CR inside a line"),
    ("CRLF after LF*", BAD.replace("\n", "\r\n"), 1, "line ends with CRLF but earlier lines"),
]
PARSE_ACCEPTS = {"HEAD _", "own head", "cycle", "no root*", "two roots"}
# (name, whole file as bytes, line of the error or None, words of the message)
FILE_CASES = [
    ("empty file", b"", None, "no sentences"),
    ("comment-only file", b"# newdoc\n# sent_id = x\n", 1, "comments but no token lines"),
    ("leading empty line", b"\n" + GOOD.encode(), 1, "empty line outside a sentence"),
    ("two empty lines", (GOOD + "\n" + GOOD).encode(), 8, "empty line outside a sentence"),
    ("UTF-16", GOOD.encode("utf-16"), 1, "UTF-16"),
    ("binary", bytes(range(256)) * 4, 1, "NUL byte"),
    ("CR-only line ends", GOOD.replace("\n", "\r").encode(), 1, "CR inside a line"),
    ("Latin-1", GOOD.replace("dog", "dög").encode("latin-1"), 2, "not UTF-8 (byte 0xF6)"),
]
CASES = ([(name, (GOOD + (text.replace("# sent_id = bad", "# note = no sent_id")
                         if name.endswith("*") else text)).encode("utf-8", "surrogateescape"),
           OFFSET + line, words) for name, text, line, words in SENTENCE_CASES] + FILE_CASES)
assert len(CASES) >= 50


@pytest.fixture(scope="module", autouse=True)
def load_each_model_once():
    """Every command loads the bundled model once per test module, not once per case (loading
    is not what these tests check)."""
    build_parser()  # imports every command module
    cached = functools.lru_cache(load_model)
    patched = [m for m in list(sys.modules.values())
               if m and getattr(m, "__name__", "").startswith("fstpunct") and
               getattr(m, "load_model", None) is load_model]
    for m in patched:
        m.load_model = cached
    yield
    for m in patched:
        m.load_model = load_model


def commands(parser, correction):
    """name -> function(input path, work folder) -> (argv, the file the message names);
    ``parser``: a ``tokens``-mode parser, ``correction``: a correction model (folders)."""
    def split(p, tmp):  # a UD folder whose en dev split is the input
        folder = tmp / "ud" / "UD_English-EWT"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "en_ewt-ud-dev.conllu").write_bytes(p.read_bytes())
        return folder / "en_ewt-ud-dev.conllu"

    return {
        "decode": lambda p, t: (["decode", "--model", "en", p, "-o", t / "out.conllu"], p),
        "normalise": lambda p, t: (["normalise", "--model", "en", p, "-o", t / "out.conllu"], p),
        "restore": lambda p, t: (["restore", "--model", "en", p, "--samples", "2", "--quiet",
                                  "-o", t / "out.conllu"], p),
        "correct": lambda p, t: (["correct", "--model", correction, p,
                                  "-o", t / "out.conllu"], p),
        "score": lambda p, t: (["score", "--gold", p, p], p),
        "stats": lambda p, t: (["stats", p], p),
        "perplexity": lambda p, t: (["perplexity", "--model", "en", p], p),
        "parse": lambda p, t: (["parse", "--model", parser, p, "-o", t / "out.conllu"], p),
        "train": lambda p, t: (["train", "--train", p, "--grammar", GRAMMAR, "--iterations", "1",
                                "--jobs", "1", "-o", t / "model"], p),
        "crf train": lambda p, t: (["crf", "train", "--lang", "en", "--train", p, "--dev", p,
                                    "--c2", "1", "-o", t / "model"], p),
        "parser train": lambda p, t: (["parser", "train", "--train", p, "--dev", p, "--epochs",
                                       "1", "--quiet", "-o", t / "model"], p),
        "rules --model": lambda p, t: (["rules", "--model", "en", "--compare", GRAMMAR, "--lang",
                                        "en", "--split", "dev", "--ud-dir", t / "ud"],
                                       split(p, t)),
        "draw": lambda p, t: (["draw", "tree", "--model", "en", "--sentence", f"{p}:nothing"], p),
        "show": lambda p, t: (["show", "--model", "en", p, "-o", t / "out.conllu"], p),
        "rephrase": lambda p, t: (["rephrase", "--model", "en", p, "-o", t / "out.conllu"], p),
    }


COMMANDS = ["decode", "normalise", "restore", "correct", "score", "stats", "perplexity", "parse",
            "train", "crf train", "parser train", "rules --model", "draw", "show",
            "rephrase"]


def run(command, data, tmp_path, models, capsys):
    path = tmp_path / "in.conllu"
    path.write_bytes(data)
    argv, named = commands(*models)[command](path, tmp_path)
    status = main([str(a) for a in argv])
    return status, capsys.readouterr(), named


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name, data, line, words", CASES, ids=[c[0] for c in CASES])
def test_malformed_input_is_one_line_and_exit_2(command, name, data, line, words, tmp_path,
                                                tokens_parser, stub_correction, capsys):
    status, out, path = run(command, data, tmp_path, (tokens_parser, stub_correction), capsys)
    if command == "parse" and name in PARSE_ACCEPTS:  # parse replaces the tree
        assert status == 0, out.err
        return
    assert status == 2, out.err
    assert out.err.count("\n") == 1 and out.err.startswith("fstpunct "), out.err
    where = f"{path}:{line}" if line else f"{path}:"
    assert where + " " in out.err or where + ":" in out.err, out.err
    assert words in out.err, out.err
    if name in {c[0] for c in SENTENCE_CASES} and line > OFFSET:
        assert ("(sentence " + f"{path}#2)" if name.endswith("*") else "(sent_id bad)") \
            in out.err, out.err
    assert not (tmp_path / "out.conllu").exists() and not (tmp_path / "model").exists()


ACCEPTED = [
    ("UTF-8 byte-order mark", b"\xef\xbb\xbf" + GOOD.encode()),
    ("CRLF line ends", (GOOD + BAD).replace("\n", "\r\n").encode()),
    ("no empty line at the end", (GOOD + BAD).rstrip("\n").encode()),
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name, data", ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_accepted_oddities_pass_every_command(command, name, data, tmp_path, tokens_parser,
                                              stub_correction, capsys):
    status, out, _ = run(command, data, tmp_path, (tokens_parser, stub_correction), capsys)
    if command == "draw":  # asks for a sentence the file does not have
        assert status == 2 and "has no sentence nothing" in out.err
        return
    assert status == 0, out.err


# Plain text (restore --text, decode --text): the file-level cases that apply to text, and a
# CoNLL-U file given as text. (name, bytes, line, words)
TEXT_CASES = [
    ("empty file", b"", None, "no sentences"),
    ("only blank lines", b"\n  \n\n", 3, "no sentences"),
    ("CoNLL-U as text", GOOD.encode(), 3, "a tab in a line of text"),
    ("UTF-16", "the dog barks\n".encode("utf-16"), 1, "UTF-16"),
    ("binary", bytes(range(256)) * 4, 1, "NUL byte"),
    ("CR-only line ends", b"the dog\rbarks\r", 1, "CR inside a line"),
    ("mixed line ends", b"the dog barks\r\nthe cat\n", 2,
     "line ends with LF but earlier lines with CRLF"),
    ("Latin-1", "the d\u00f6g barks\n".encode("latin-1"), 1, "not UTF-8 (byte 0xF6)"),
]
TEXT_ACCEPTED = [
    ("UTF-8 byte-order mark", b"\xef\xbb\xbfthe dog barks\n"),
    ("CRLF line ends", b"the dog barks\r\n\r\nthe cat\r\n"),
    ("no line end at the end", b"the dog barks"),
    ("blank lines and spaces", b"\n  the   dog barks  \n\n\n"),
    ("punctuation only", b"the dog barks\n?!\n"),
]
TEXT_COMMANDS = ["restore", "decode"]


@pytest.fixture(scope="module")
def tagger_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tagger") / "tagger"
    train_tagger([depunctuated(s) for s in read_file(SAMPLE)], epochs=1,
                 log=lambda m: None).save(folder)
    return folder


def run_text(command, data, tmp_path, parser, tagger_model, capsys):
    path = tmp_path / "in.txt"
    path.write_bytes(data)
    status = main([command, "--text", "--model", "en", "--tagger", str(tagger_model),
                   "--parser", str(parser), str(path), "-o", str(tmp_path / "out.txt")]
                  + (["--quiet"] if command == "restore" else []))
    return status, capsys.readouterr(), path


@pytest.mark.parametrize("command", TEXT_COMMANDS)
@pytest.mark.parametrize("name, data, line, words", TEXT_CASES, ids=[c[0] for c in TEXT_CASES])
def test_malformed_text_is_one_line_and_exit_2(command, name, data, line, words, tmp_path,
                                               removed_parser, tagger_model, capsys):
    status, out, path = run_text(command, data, tmp_path, removed_parser, tagger_model, capsys)
    assert status == 2, out.err
    assert out.err.count("\n") == 1 and out.err.startswith("fstpunct "), out.err
    where = f"{path}:{line}" if line else f"{path}:"
    assert where + " " in out.err or where + ":" in out.err, out.err
    assert words in out.err, out.err
    assert not (tmp_path / "out.txt").exists()


@pytest.mark.parametrize("command", TEXT_COMMANDS)
@pytest.mark.parametrize("name, data", TEXT_ACCEPTED, ids=[c[0] for c in TEXT_ACCEPTED])
def test_accepted_text_passes(command, name, data, tmp_path, removed_parser, tagger_model,
                              capsys):
    status, out, _ = run_text(command, data, tmp_path, removed_parser, tagger_model, capsys)
    assert status == 0, out.err
    sentences = list(read_file(tmp_path / "out.txt"))
    assert len(sentences) == len([x for x in data.decode("utf-8-sig").splitlines()
                                  if x.strip()])


@pytest.mark.parametrize("command", [["decode"], ["normalise"], ["parse"],
                                     ["restore", "--samples", "20", "--quiet"]])
def test_crlf_round_trips_byte_for_byte(command, tmp_path, tokens_parser):
    """CRLF input gives CRLF output: the same bytes as LF input's output with LF -> CRLF."""
    extra = ["--model", str(tokens_parser) if command == ["parse"] else "en"]
    lf, crlf = tmp_path / "lf.conllu", tmp_path / "crlf.conllu"
    lf.write_bytes(SAMPLE.read_bytes())
    crlf.write_bytes(SAMPLE.read_bytes().replace(b"\n", b"\r\n"))
    for f in (lf, crlf):
        assert main([*command, *extra, str(f), "-o", f"{f}.out"]) == 0
    out_lf, out_crlf = Path(f"{lf}.out").read_bytes(), Path(f"{crlf}.out").read_bytes()
    assert out_crlf == out_lf.replace(b"\n", b"\r\n") and b"\r\r" not in out_crlf


@pytest.mark.parametrize("record", ["models/esl-learner", None])
def test_a_record_that_is_not_an_object_is_no_grammar_for_rules(record, tmp_path, capsys):
    """``rules --model M --compare G`` of a model whose model.json record is a string (a
    correction model's learner saved before 1e10b99) or null: an AttributeError traceback
    after c327bae; now the comparison, over the en dev split (no language recorded: its
    bundled name is not one either, so en)."""
    treebank("en", "dev")
    import json
    import shutil

    from fstpunct.model.store import BUNDLED
    folder = tmp_path / "m"
    shutil.copytree(BUNDLED / "en", folder,
                    ignore=shutil.ignore_patterns("tagger*", "parser*", "text", "order.*"))
    meta = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    meta["record"] = record
    (folder / "model.json").write_text(json.dumps(meta), encoding="utf-8")
    assert main(["rules", "--model", str(folder), "--compare", str(GRAMMAR)]) == 0
    out = capsys.readouterr().out
    assert "confident learned edits" in out and "over en dev" in out
