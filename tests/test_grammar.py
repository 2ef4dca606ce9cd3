"""Rule files (DESIGN §5): Nunberg's English rules after expansion, the initial channel, every
shipped grammar compiles, errors carry file and line, and the compile/rules commands."""
import hashlib
import io
import json
import math
import re
import shutil
import sys
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import counted_reads, treebank

from fstpunct.cli.main import main
from fstpunct.errors import FstpunctWarning, GrammarError, InputError, ModelError
from fstpunct.fst.channel import EDITS, KEEP, Channel
from fstpunct.fst.default_grammar import GRAMMARS as SHIPPED
from fstpunct.fst.default_grammar import model_grammar
from fstpunct.fst.grammar import load_grammar, parse_grammar
from fstpunct.model.store import load_edit_counts, load_model, model_path, read_record, save_model
from fstpunct.ud.slots import ABBV, BOUNDARY, UNK
from fstpunct.ud.treebank import read_file

GRAMMARS = sorted((Path(__file__).parent.parent / "grammars").glob("*.rules"))
EN = Path(__file__).parent.parent / "grammars" / "en.rules"


@pytest.fixture(scope="module")
def en():
    return load_grammar(EN)


@pytest.mark.parametrize("window, result", [
    (", ,", ","), (", .", "."), ("- ,", "-"), ("- ;", ";"), ("; .", "."),      # point absorption
    ("” ,", ", ”"), ("” .", ". ”"), ("’ .", ". ’"),                           # quote transposition
    (". ?", "?"), (". !", "!"), ("<abbv> .", "<abbv>"),                        # period absorption
    (", )", ")"), ("- )", ")"), ("( ,", "("), (", ”", "”"), ("“ ,", "“"),      # bracket absorption
    ("∘ ,", "∘"),                                                              # initial comma
])
def test_nunberg_rules_present(en, window, result):
    rules = {(r.a, r.b): r for r in en.rules}
    a, b = window.split()
    assert " ".join(rules[a, b].result) == result


@pytest.mark.parametrize("window", [") .", ". ”", ", “", "? !", "( “", "∘ -", ") ,"])
def test_unlisted_windows_keep(en, window):
    assert tuple(window.split()) not in {(r.a, r.b) for r in en.rules}


def test_initial_channel(en):
    channel = en.channel(extra_symbols=["!!", ","])
    assert channel.symbols[:3] == (BOUNDARY, ABBV, UNK) and channel.symbols[-1] == "!!"
    assert channel.direction == "rtl" and en.channel(direction="ltr").direction == "ltr"
    phi = lambda a, b: channel.phi[channel.index(a), channel.index(b)]  # noqa: E731
    assert phi(",", ".")[EDITS.index("LEFT")] == pytest.approx(0.9)
    assert phi(",", ".").sum() == pytest.approx(1.0)
    assert phi("”", ".")[EDITS.index("SWAP")] == pytest.approx(0.7)    # per-rule mass
    assert phi(")", ".")[KEEP] == pytest.approx(0.9)                    # unlisted: KEEP
    assert phi("!!", ",")[KEEP] == pytest.approx(0.9)
    assert list(phi(BOUNDARY, ",")) == pytest.approx([0.1, 0, 0.9, 0])
    best = lambda u: max(channel.distribution(u).items(), key=lambda kv: kv[1])[0]  # noqa: E731
    assert best(("’", "”", ".")) == (".", "’", "”")                     # right to left
    assert best((",", "”", ",")) == (",", "”")
    assert best((BOUNDARY, ",", "“")) == (BOUNDARY, "“")


def test_en_pairs(en):
    assert {("(", ")"), ("[", "]"), ("“", "”"), ("‘", "’"), ("«", "»")} <= set(en.pairs)


@pytest.mark.parametrize("path", GRAMMARS, ids=lambda p: p.stem)
def test_every_grammar_compiles(path, tmp_path):
    grammar = load_grammar(path)
    assert grammar.language == path.stem
    out = tmp_path / f"{path.stem}.fst"
    channel = grammar.compile(out)
    loaded = Channel.load(out)
    np.testing.assert_allclose(loaded.phi, channel.phi, rtol=1e-12)
    meta = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["direction"] == grammar.direction and meta["symbols"] == list(channel.symbols)
    assert [tuple(p) for p in meta["pairs"]] == grammar.pairs
    assert math.isclose(sum(channel.distribution(channel.symbols[3:6]).values()), 1.0)


HEAD = "language xx\ndirection ltr\nsymbols , . ;\npair ( )\nclass p = , . ;\n"


@pytest.mark.parametrize("body, line, message", [
    ("colour red", 6, "unknown directive"),
    ("direction rtl", 6, "given twice"),
    ("symbols , !", 6, "declared twice"),
    ("symbols ∘", 6, "added by the compiler"),
    ("symbols abc", 6, "looks like a name"),
    ("class q = , !", 6, "unknown symbol '!'"),
    ("rule , ! -> ,", 6, "unknown symbol '!'"),
    ("rule x:nope , -> x", 6, "unknown class 'nope'"),
    ("rule , . -> ;", 6, "not in the window"),
    ("rule , . -> , , .", 6, "the result must be"),
    ("rule x:p y:p -> z", 6, "not a variable"),
    ("rule ∘ , -> ,", 6, "never absorbed"),
    ("rule , ∘ -> ∘", 6, "never absorbed"),
    ("rule x:p y:p -> y when x < y", 6, "has no strength"),
    ("rule x:p y:p -> y when x ~ y", 6, "expected: when"),
    ("rule , . -> . mass 2", 6, "mass must be"),
    ("rule , . -> .\nrule , . -> ,", 7, "already gets LEFT"),
    ("rule p p -> p", 6, "both window terms"),
    ("rule x:p y:p -> y when x = y\nrule x:p y:p -> x when x != x", 7, "expected: when"),
    ("strength , then then .", 6, "strength WEAKEST"),
    ("pair ( ]", 6, "already in a pair"),
])
def test_errors_name_the_line(body, line, message):
    with pytest.raises(GrammarError, match=message) as info:
        parse_grammar(HEAD + body, "bad.rules")
    assert info.value.line == line
    assert str(info.value).startswith(f"bad.rules:{line}: ")


def test_missing_header_and_unreadable_file(tmp_path):
    with pytest.raises(GrammarError, match="missing 'direction'") as info:
        parse_grammar("language xx\n", "x.rules")
    assert info.value.line is None
    with pytest.raises(GrammarError, match="ltr or rtl") as info:
        parse_grammar("language xx\n\ndirection up\n", "x.rules")
    assert info.value.line == 3
    with pytest.raises(InputError, match="no such file"):
        load_grammar(tmp_path / "nope.rules")


def test_unreadable_rule_files_are_said_plainly(tmp_path):
    """A missing file, a folder, bytes that are not UTF-8 (by line) and UTF-16, each in the
    words the CoNLL-U reader uses (one reader, fstpunct.files: no Python errno text); a
    byte-order mark is dropped, as in CoNLL-U (it was read as part of the first line)."""
    bad = tmp_path / "bad.rules"
    bad.write_bytes(b"language xx\n\ndirection \xff\n")
    utf16 = tmp_path / "utf16.rules"
    utf16.write_bytes("language xx\n".encode("utf-16"))
    for path, message in ((tmp_path / "nope.rules", "no such file"),
                          (tmp_path, "is a folder, not a file"),
                          (utf16, ":1: UTF-16 text; fstpunct reads UTF-8")):
        with pytest.raises(InputError) as info:
            load_grammar(path)
        with pytest.raises(InputError) as conllu:
            list(read_file(path))
        said = str(info.value)
        assert said == str(conllu.value) and said.startswith(str(path)) and message in said
    with pytest.raises(InputError) as info:  # the CoNLL-U reader names the sentence too
        load_grammar(bad)
    assert str(info.value) == f"{bad}:3: not UTF-8 (byte 0xFF); fstpunct reads UTF-8 text"
    bom = tmp_path / "bom.rules"
    bom.write_bytes(b"\xef\xbb\xbf" + EN.read_bytes())
    assert load_grammar(bom).rules == load_grammar(EN).rules


def test_a_rule_file_is_not_read_from_stdin(monkeypatch, capsys):
    """``-`` is a file name nowhere for rule files (rules, compile, train --grammar): refused
    in one line, standard input left unread."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(EN.read_bytes())))
    with pytest.raises(InputError, match="^-: a rule file is read from a file, not from "):
        load_grammar("-")
    assert main(["rules", "-"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert sys.stdin.read() == EN.read_text(encoding="utf-8")


def test_schemata_features():
    text = HEAD + """strength , then ; then .   # weakest first
schema demo
rule x:p y:p -> y when x < y
rule p ( -> ( p   mass 0.5     # a bare class name is its own variable
rule x:p y:p -> x when x = y   # , , → LEFT (RIGHT is the same edit here)
"""
    grammar = parse_grammar(text, "ok.rules")
    rules = {(r.a, r.b): r for r in grammar.rules}
    assert rules[",", "."].edit == "LEFT" and rules[",", "."].schema == "demo"
    assert rules[".", "("].edit == "SWAP" and rules[".", "("].mass == 0.5
    assert rules[",", ","].edit == "LEFT" and rules[",", ","].result == (",",)
    assert (".", ",") not in rules
    assert grammar.symbols == (BOUNDARY, ABBV, UNK, ",", ".", ";", "(", ")")


def test_compile_and_rules_commands(tmp_path, capsys):
    out = tmp_path / "sub" / "en.fst"
    assert main(["compile", str(EN), "-o", str(out)]) == 0
    assert out.exists() and out.with_suffix(".json").exists()
    assert main(["rules", str(EN)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["window", "edit", "result", "p", "schema", "line"]
    assert any(line.split()[:6] == ["”", ".", "SWAP", ".", "”", "0.700"] for line in table)
    assert main(["rules", str(EN), "--tsv"]) == 0
    assert "”\t.\tSWAP" not in capsys.readouterr().out       # windows are one cell
    bad = tmp_path / "bad.rules"
    bad.write_text(HEAD + "rule , . -> ?\n", encoding="utf-8")
    assert main(["compile", str(bad), "-o", str(tmp_path / "bad.fst")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{bad}:6:" in err[0]


@pytest.mark.parametrize("args", [[], ["--compare", str(EN)], [str(EN), "--model", "en"],
                                  ["--model", "en", "--compare", str(EN), "--relations", "appos",
                                   "apos"],
                                  ["--model", "en", "--compare", str(EN), "--relations",
                                   "acl:relcl"]])
def test_rules_usage_errors_are_one_line_and_status_2(args, capsys):
    """A relation of the table that is not a UD universal one (a typo, a subtype: the table
    matches universal relations only) printed an empty row before; now it is refused."""
    assert main(["rules", *args]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("fstpunct rules: error: ") and not out


def test_rules_compare_a_model_with_its_own_grammar_by_default(capsys):
    """``rules --model M`` compares M with the grammar it was trained from (as ``show``
    does), on M's language's dev split: the default-grammar models (de, …) have no rule file
    to give --compare, and a German model's relation table came from English dev."""
    for lang in ("en", "de", "ar"):
        treebank(lang, "dev")
    assert main(["rules", "--model", "en"]) == 0
    own = capsys.readouterr().out
    assert main(["rules", "--model", "en", "--compare", str(EN), "--lang", "en"]) == 0
    assert own == capsys.readouterr().out
    assert main(["rules", "--model", "de"]) == 0
    out = capsys.readouterr().out
    assert "confident learned edits" in out and "over de dev" in out
    # the model's language, not --compare's grammar's (ar records none: its grammar's, ar)
    assert main(["rules", "--model", "ar", "--compare", str(EN)]) == 0
    assert "over ar dev" in capsys.readouterr().out


def test_the_recorded_rule_file_comes_before_the_packages_namesake(tmp_path):
    """A model trained on a rule file of its own named like a package grammar was compared
    with the package's (it came first)."""
    own = tmp_path / "en.rules"
    own.write_text(EN.read_text(encoding="utf-8"), encoding="utf-8")
    assert model_grammar({"grammar": str(own)}).path == str(own)
    assert model_grammar({"grammar": str(tmp_path / "gone" / "en.rules")}).path.endswith(
        "grammars/en.rules")  # another checkout's path: the package's grammar of that name
    # a shipped grammar of another checkout that exists (as bundled models record them):
    # this package's, not that checkout's edited copy
    other = tmp_path / "checkout" / "fstpunct" / "grammars" / "en.rules"
    other.parent.mkdir(parents=True)
    other.write_text(EN.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert model_grammar({"grammar": str(other)}).path == str(SHIPPED / "en.rules")


def test_rules_of_a_correction_model_compare_its_learner_model(stub_correction, capsys):
    """``rules --model`` of a correction model's folder reads its learner model, as decode and
    perplexity do (it was 'not a fstpunct model'); a learner model stores no expected edit
    counts, so the confident edits are left out, saying so, and the rest is as for that model
    (here the bundled English one; a saved learner records no rule file, so --compare)."""
    treebank("en", "dev")
    assert main(["rules", "--model", "en", "--compare", str(EN)]) == 0
    own = capsys.readouterr().out
    assert main(["rules", "--model", str(stub_correction), "--compare", str(EN)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# {stub_correction} stores no expected edit counts")
    assert own[own.index("\n# the grammar's"):] == out[out.index("\n# the grammar's"):]
    assert main(["rules", "--model", str(stub_correction)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--compare GRAMMAR" in err


def test_damaged_edit_counts_are_a_one_line_error(tmp_path, capsys):
    """A model's ``edits.npy`` that is empty, truncated, a pickle, Python objects, not an array
    of counts or of another shape than its channel's φ is a ModelError, and ``rules --compare``
    says so in one line naming the file (never numpy's advice to allow pickles), with status
    2."""
    folder = tmp_path / "en"
    shutil.copytree(model_path("en"), folder, ignore=shutil.ignore_patterns("parser", "tagger*",
                                                                           "text"))
    shape = load_model(folder).channel.phi.shape
    good = load_edit_counts(folder, shape)
    stored = (folder / "edits.npy").read_bytes()
    damaged = {"empty": b"", "truncated": stored[:len(stored) // 2],
               "header only": stored[:60], "pickled": b"\x80\x04K\x01."}
    for counts in (good[:-1], good.astype(np.int64), -good, good * np.nan, good[..., 0]):
        np.save(tmp_path / "x.npy", counts)
        damaged[f"{counts.dtype} {counts.shape}"] = (tmp_path / "x.npy").read_bytes()
    np.save(tmp_path / "x.npy", np.array([None], dtype=object))
    damaged["objects"] = (tmp_path / "x.npy").read_bytes()
    np.savez(tmp_path / "x.npz", edits=good)
    damaged["an archive"] = (tmp_path / "x.npz").read_bytes()
    for what, data in damaged.items():
        (folder / "edits.npy").write_bytes(data)
        with pytest.raises(ModelError, match="edits.npy"):
            load_edit_counts(folder, shape)
        assert main(["rules", "--model", str(folder), "--compare", str(EN)]) == 2, what
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "edits.npy" in err, what
        assert "allow_pickle" not in err, what  # numpy's advice to a user who meant no pickle
    (folder / "edits.npy").unlink()
    with pytest.raises(ModelError, match="no readable expected edit counts"):
        load_edit_counts(folder)


def test_edit_counts_of_another_model_are_refused(tmp_path, capsys):
    """edits.npy from another run (alone, or with that run's model.json) was read as the
    model's own: save_model records in model.json a digest of channel.fst and edits.npy, and
    reading the counts refuses a folder whose pair is not the recorded one, in one line naming
    the folder. A folder without the record (written before it, as the bundled ones) loads."""
    en = load_model("en")
    shape = en.channel.phi.shape
    rng = np.random.default_rng(0)
    folders = {}
    for run in ("a", "b"):  # two runs: two channels (φ a little apart), two sets of counts
        phi = en.channel.phi * (1 + rng.random(shape) * 1e-3)  # impossible edits stay 0
        model = replace(en, channel=Channel(en.channel.symbols, en.channel.direction,
                                            phi / phi.sum(axis=2, keepdims=True)))
        folders[run] = save_model(model, tmp_path / run, {"run": run}, rng.random(shape))
    assert (folders["a"] / "channel.fst").read_bytes() != \
        (folders["b"] / "channel.fst").read_bytes()
    for folder in folders.values():
        assert read_record(folder)["edit_counts_of"]
        assert load_edit_counts(folder, shape).shape == shape  # its own counts: read
    mixed = {"edits.npy alone": ["edits.npy"], "with its model.json": ["edits.npy",
                                                                      "model.json"],
             "channel.fst alone": ["channel.fst"]}
    for what, names in mixed.items():
        folder = tmp_path / what.replace(" ", "-")
        shutil.copytree(folders["a"], folder)
        for name in names:
            shutil.copy(folders["b"] / name, folder / name)
        with pytest.raises(ModelError, match=f"^{folder}: edits.npy and channel.fst are not "
                                             "the pair model.json records"):
            load_edit_counts(folder, shape)
        assert main(["rules", "--model", str(folder), "--compare", str(EN)]) == 2, what
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{folder}: edits.npy and channel.fst" in err, what
    old = tmp_path / "old"  # written before the record: its edits.npy is read as it is
    shutil.copytree(folders["a"], old)
    meta = json.loads((old / "model.json").read_text(encoding="utf-8"))
    del meta["edit_counts_of"]
    (old / "model.json").write_text(json.dumps(meta), encoding="utf-8")
    shutil.copy(folders["b"] / "edits.npy", old / "edits.npy")
    assert (load_edit_counts(old, shape) == load_edit_counts(folders["b"], shape)).all()
    assert "edit_counts_of" not in read_record("en")  # the bundled model loads unchecked
    assert load_edit_counts("en", shape).shape == shape


@pytest.fixture
def saved_en(tmp_path):
    """The bundled English model and a folder it is saved into (edit counts all 1)."""
    en = load_model("en")
    return en, save_model(en, tmp_path / "m", {}, np.ones(en.channel.phi.shape))


def test_edit_counts_are_read_once(saved_en, monkeypatch):
    """load_edit_counts opens edits.npy once, for the array and for the digest model.json
    records (it read the file a second time for the digest)."""
    en, folder = saved_en
    shape = en.channel.phi.shape
    opened = counted_reads(monkeypatch, "open")
    assert (load_edit_counts(folder, shape) == 1).all() and opened.count("edits.npy") == 1


def test_the_recorded_edit_counts_digest_is_of_the_files_written(tmp_path, monkeypatch):
    """save_model hashes the edits.npy and channel.fst bytes it writes (it read each file back
    to hash it, channel.fst until final review 23-C): the digest model.json records is that
    of the channel.fst and edits.npy on disk, each hashed here on its own."""
    en = load_model("en")
    counts = np.random.default_rng(0).random(en.channel.phi.shape)
    read = counted_reads(monkeypatch)
    folder = save_model(en, tmp_path / "m", {}, counts)
    monkeypatch.undo()
    assert "edits.npy" not in read and "channel.fst" not in read
    digests = [hashlib.sha256((folder / name).read_bytes()).digest()
               for name in ("channel.fst", "edits.npy")]
    assert read_record(folder)["edit_counts_of"] == hashlib.sha256(b"".join(digests)).hexdigest()
    assert (np.load(folder / "edits.npy") == counts).all()


@pytest.mark.parametrize("recorded", [5, "x", "A" * 64, "0" * 63, ["0" * 64]])
def test_a_recorded_edit_counts_of_that_is_no_digest_is_a_damaged_record(saved_en, recorded):
    """model.json's edit_counts_of that is not 64 lower-case hex digits (what save_model
    writes) is refused as a damaged model.json, not as a folder assembled from two runs."""
    folder = saved_en[1]
    meta = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    meta["edit_counts_of"] = recorded
    (folder / "model.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ModelError, match=f"^{folder / 'model.json'}: edit_counts_of must be 64 "
                       "lower-case hex digits .*: a damaged model.json$"):
        load_edit_counts(folder)


def test_edit_counts_without_a_readable_channel_are_refused_in_one_line(saved_en):
    """load_edit_counts (public, run without load_model) reads channel.fst for the recorded
    digest: a missing or unreadable one is a ModelError naming it (was a FileNotFoundError)."""
    en, folder = saved_en
    assert load_edit_counts(folder).shape == en.channel.phi.shape
    (folder / "channel.fst").unlink()
    with pytest.raises(ModelError, match=f"^{folder / 'channel.fst'}: cannot read: No such"):
        load_edit_counts(folder)
    (folder / "channel.fst").mkdir()
    with pytest.raises(ModelError, match=f"^{folder / 'channel.fst'}: cannot read: Is a dir"):
        load_edit_counts(folder)


def test_edit_counts_of_a_bundled_name_warn_of_a_local_namesake_once(tmp_path, monkeypatch):
    """load_edit_counts looked the name up twice (for the file, then for the folder), so a
    bundled name beside a local folder of that name warned twice; once now."""
    shape = load_model("en").channel.phi.shape
    monkeypatch.chdir(tmp_path)
    (tmp_path / "en").mkdir()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert load_edit_counts("en", shape).shape == shape  # the bundled model's
    assert [type(w.message) for w in said] == [FstpunctWarning], [str(w.message) for w in said]


def test_the_files_the_rule_files_and_readme_name_exist():
    """A path of the repository named in a rule file's comments or in README.md exists (the
    rule files sent readers to fstpunct/grammar.py, which moved to fstpunct/fst/);
    placeholders in capitals (grammars/LANG.rules) aside."""
    root = Path(__file__).parents[1]
    for doc in [*sorted((root / "grammars").glob("*.rules")), root / "README.md"]:
        named = re.findall(r"(?<![\w/.])((?:fstpunct|scripts|bench|tests|grammars|docs|data)/"
                           r"[\w/.-]*\w\.(?:py|pyx|rules|md|conllu))",
                           doc.read_text(encoding="utf-8"))
        missing = [p for p in named if not re.search(r"/[A-Z]+\.", p) and not (root / p).exists()]
        assert not missing, (doc.name, missing)
