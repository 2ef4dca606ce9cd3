"""Restoration building blocks: strip/insert, scoring, the trivial baseline and the CRF tagger."""
import io
import itertools
import json
import math
import re
from pathlib import Path

import conllu
import pytest
from conftest import treebank
from hypothesis import given
from hypothesis import strategies as st
from script_module import load_script

from fstpunct.apps.restoration import marks
from fstpunct.apps.restoration.crf import EMPTY, OTHER, Backoff, CrfModel, train
from fstpunct.apps.restoration.metrics import levenshtein, score, sign_flip_p, slot_strings
from fstpunct.apps.restoration.pipeline import restored
from fstpunct.apps.restoration.strip import insert, insertions_of, strip
from fstpunct.apps.restoration.trivial import Trivial, is_model_folder, is_path
from fstpunct.cli.main import main
from fstpunct.errors import ConlluError, FstpunctError, InputError
from fstpunct.files import has_separator
from fstpunct.model.store import BUNDLED, is_bundled
from fstpunct.ud.slots import depunctuate, to_slots
from fstpunct.ud.treebank import read_conllu, read_file

DATA = Path(__file__).parent / "data"
SAMPLE = Path(__file__).parent.parent / "data" / "sample.conllu"


def parse_one(text: str):
    return next(read_conllu(io.StringIO(text)))


def conll(rows: str) -> str:
    """A sentence from space-separated rows: ID FORM UPOS HEAD DEPREL [MISC]."""
    lines = ["# sent_id = t", "# text = x"]
    for row in rows.strip().splitlines():
        i, form, upos, head, rel, *misc = row.split()
        lines.append("\t".join([i, form, form.lower(), upos, "_", "_", head, rel, "_",
                                misc[0] if misc else "_"]))
    return "\n".join(lines) + "\n\n"


GOLD = conll("""
1 Yes INTJ 3 discourse SpaceAfter=No
2 , PUNCT 1 punct
3 go VERB 0 root
4 ( PUNCT 5 punct SpaceAfter=No
5 now ADV 3 advmod SpaceAfter=No
6 ) PUNCT 5 punct SpaceAfter=No
7 . PUNCT 3 punct
""")


@pytest.fixture(scope="module")
def sentences():
    dev = itertools.islice(treebank("en", "dev").sentences(), 200)
    return [*read_file(DATA / "edge.conllu"), *read_file(SAMPLE), *dev]


def test_strip_insert_round_trip(sentences):
    for s in sentences:
        if all(w.is_punct for w in s.words):
            with pytest.raises(ConlluError, match="all punctuation"):
                strip(s)
            continue
        stripped = strip(s)
        assert not any(w.is_punct for w in stripped.words)
        assert [w.form for w in stripped.words] == [w.form for w in depunctuate(s)[0]]
        assert [w.head for w in stripped.words] == depunctuate(s)[1]
        assert strip(stripped).text() == stripped.text()
        back = insert(stripped, insertions_of(s))
        assert to_slots(back).slots == to_slots(s).slots, s.sent_id
        for out in (stripped, back):
            assert parse_one(out.text()).text() == out.text()
            assert len(conllu.parse(out.text())) == 1


def test_marks_are_an_insertions_tokens_without_heads(sentences):
    assert marks(((",", 3), ("”", 2))) == (",", "”") and marks(()) == ()
    for s in sentences[:50]:
        if not all(w.is_punct for w in s.words):
            assert [marks(i) for i in insertions_of(s)] == [
                tuple(x) for x in slot_strings(to_slots(s))], s.sent_id


def test_strip_keeps_a_sentence_without_a_tree_without_one():
    for rows, words in ((GOLD, ["Yes", "go", "now"]), (conll("1 go VERB 0 root"), ["go"])):
        unparsed = re.sub(r"^(\d+(?:\t[^\t]*){5})\t\d+", r"\1\t_", rows, flags=re.M)
        out = strip(next(read_conllu(io.StringIO(unparsed), tree=None)))
        assert [w.form for w in out.words] == words
        assert [ln.fields[6] for ln in out.lines] == ["_"] * len(words)


def test_strip_renumbers_ranges_empty_nodes_deps_and_spacing():
    edge = {s.sent_id: s for s in read_file(DATA / "edge.conllu")}
    out = strip(edge["mwt-empty"]).text().rstrip("\n").splitlines()
    assert "# text = Vamos al cine y él también" in out
    assert "2-3\tal\t_\t_\t_\t_\t_\t_\t_\t_" in out
    assert out[-3].startswith("6\tél\tél\tPRON\t_\t_\t1\tconj\t1:conj|6.1:nsubj\t_")
    assert out[-2].startswith("6.1\tva")
    assert out[-1] == "7\ttambién\ttambién\tADV\t_\t_\t6\tadvmod\t6:advmod\t_"
    quotes = strip(edge["quotes-xpos"])
    assert quotes.comments[-1] == "# text = He said Go home etc. today"


def test_unreadable_deps_are_refused():
    for deps, message in (("9:discourse", "DEPS head 9 is not a node"),
                          ("3-discourse", "is not '_' or HEAD:RELATION")):
        with pytest.raises(ConlluError, match=message):
            strip(parse_one(GOLD.replace("\tdiscourse\t_\t", f"\tdiscourse\t{deps}\t")))


def test_insert_spacing_and_fields():
    stripped = strip(parse_one(GOLD))
    assert stripped.comments[-1] == "# text = Yes go now"
    out = insert(stripped, [(("“", 2),), ((",", 1), ("<abbv>", 1)), (("(", 3),),
                            (("<unk>", 3), (")", 3), (".", 2))])
    assert out.comments[-1] == "# text = “Yes, go (now)."
    assert out.lines[0].fields == ["1", "“", "“", "PUNCT", "_", "_", "4", "punct", "_",
                                   "SpaceAfter=No"]
    assert [ln.fields[6] for ln in out.lines] == ["4", "4", "2", "0", "6", "4", "6", "4"]
    assert [ln.fields[9] for ln in out.lines][1:4] == ["SpaceAfter=No", "_", "_"]


def test_insert_absorbs_a_period_after_an_abbreviation():
    """Nunberg's period absorption, always: a ``.`` inserted after ``p.m.`` is left out (the
    word kept as given); a ``.`` after another mark, or after a word without the dot, stays."""
    stripped = strip(parse_one(conll("""
1 We PRON 2 nsubj
2 left VERB 0 root
3 at ADP 4 case
4 9 NUM 2 obl
5 p.m. ADV 4 advmod
""")))
    for end in ((("<abbv>", 5), (".", 2)), ((".", 2),)):
        out = insert(stripped, [()] * 5 + [end])
        assert out.comments[-1] == "# text = We left at 9 p.m.", end
        assert [w.form for w in out.words] == ["We", "left", "at", "9", "p.m."]
        assert [ln.fields[9] for ln in out.lines] == ["_"] * 5
    quoted = insert(stripped, [()] * 5 + [(("<abbv>", 5), ("”", 2), (".", 2))])
    assert quoted.comments[-1] == "# text = We left at 9 p.m.”."
    assert insert(stripped, [()] * 3 + [((".", 2),), (), ()]
                  ).comments[-1] == "# text = We left at. 9 p.m."


class _FullStop:
    """A restorer that ends every sentence in the root's full stop after an abbreviation's
    dot (``<abbv> .``), as the models do after ``p.m.``."""

    def restore(self, sent, alternatives=()):
        n = len(sent.words)
        return [()] * n + [(("<abbv>", n), (".", 2))]


def test_the_restoration_script_writes_what_restore_writes():
    """scripts/restoration.py's figures measure what ``fstpunct restore`` writes
    (:func:`~fstpunct.apps.restoration.pipeline.restored`): a restored full stop after
    ``p.m.`` is absorbed there too, so gold's sentence comes back with no edit."""
    script = load_script("restoration")
    gold = parse_one(conll("""
1 We PRON 2 nsubj
2 left VERB 0 root
3 at ADP 4 case
4 9 NUM 2 obl
5 p.m. ADV 4 advmod
"""))
    [by_script] = script.by_method(_FullStop(), [gold], [strip(gold)])
    [by_command] = restored([gold], _FullStop())
    assert by_script.comments[-1] == "# text = We left at 9 p.m."
    assert by_script.text() == by_command.text()
    assert score([gold], [by_script]).edits == 0


def test_insert_rejects_bad_input():
    stripped = strip(parse_one(GOLD))
    with pytest.raises(FstpunctError, match="expected 4"):
        insert(stripped, [()] * 3)
    with pytest.raises(FstpunctError, match="head 4"):
        insert(stripped, [(), (), (), ((".", 4),)])
    with pytest.raises(FstpunctError, match="without punctuation"):
        insert(parse_one(GOLD), [()] * 4)


def test_insert_inside_multiword_token_goes_after_it():
    edge = {s.sent_id: s for s in read_file(DATA / "edge.conllu")}
    stripped = strip(edge["mwt-empty"])
    slots = [()] * 8
    slots[2] = ((",", 2),)  # between "a" and "el", inside "al"
    out = insert(stripped, slots)
    assert to_slots(out).slots[3] == (",",)
    assert "# text = Vamos al, cine y él también" in out.comments


def naive_levenshtein(a, b):
    if not a or not b:
        return len(a) + len(b)
    return min(naive_levenshtein(a[1:], b) + 1, naive_levenshtein(a, b[1:]) + 1,
               naive_levenshtein(a[1:], b[1:]) + (a[0] != b[0]))


@given(st.lists(st.sampled_from(",.“”"), max_size=5), st.lists(st.sampled_from(",.“”"), max_size=5))
def test_levenshtein_matches_recursion(a, b):
    assert levenshtein(a, b) == naive_levenshtein(a, b) == levenshtein(b, a)


def test_levenshtein_hand_cases():
    assert levenshtein([], []) == 0
    assert levenshtein([","], []) == 1
    assert levenshtein([".", "”"], ["”", "."]) == 2
    assert levenshtein([",", "“"], ["“"]) == 1


def test_metrics_on_hand_made_pair():
    gold = parse_one(GOLD)  # slots: (), (",",), ("(",), (")", ".")
    pred = insert(strip(gold), [(("“", 2),), ((",", 1), (",", 1)), (), ((".", 2), (")", 3))])
    result = score([gold], [pred])
    assert result.sentences == 1 and result.slots == 4
    assert result.edits == 1 + 1 + 1 + 2 and result.average_edit_distance == 5.0
    marks = result.to_dict()["marks"]
    assert (marks["comma"]["matched"], marks["comma"]["predicted"], marks["comma"]["gold"]) \
        == (1, 2, 1)
    assert marks["comma"]["precision"] == 50.0 and marks["comma"]["recall"] == 100.0
    assert marks["comma"]["f1"] == pytest.approx(200 / 3)
    assert (marks["brackets"]["matched"], marks["brackets"]["predicted"],
            marks["brackets"]["gold"]) == (1, 1, 2)
    assert (marks["period"]["precision"], marks["period"]["recall"]) == (100.0, 100.0)
    assert (marks["all"]["matched"], marks["all"]["predicted"], marks["all"]["gold"]) == (3, 5, 4)
    assert marks["quotes"]["predicted"] == 1 and marks["quotes"]["f1"] == 0.0


@pytest.mark.parametrize("a, b", [([3, 1, 2, 0, 5, 1, 2], [1, 1, 0, 1, 2, 0, 2]),
                                  ([1, 2, 0, 4, 1, 0, 3, 2, 1], [0, 2, 1, 1, 1, 3, 0, 0, 0])])
def test_sign_flip_p_matches_exact_enumeration(a, b):
    d = [x - y for x, y in zip(a, b) if x != y]
    flips = list(itertools.product((-1, 1), repeat=len(d)))
    exact = sum(abs(sum(s * x for s, x in zip(f, d))) >= abs(sum(d)) for f in flips) / len(flips)
    assert sign_flip_p(a, b, rounds=40_000) == pytest.approx(exact, abs=0.01)
    assert sign_flip_p(a, a) == 1.0


def test_all_punctuation_gold_sentence_counts_with_empty_prediction():
    edge = list(read_file(DATA / "edge.conllu"))
    preds = [insert(strip(s), [()] * (len(depunctuate(s)[0]) + 1))
             for s in edge if s.sent_id != "all-punct"]
    result = score(edge, preds)
    assert result.sentences == len(edge)
    assert result.marks["all"].predicted == 0 and result.marks["all"].gold == result.edits
    assert score(edge, edge).edits == 0


def test_score_command(tmp_path, capsys):
    gold, pred, bad = tmp_path / "gold.conllu", tmp_path / "pred.conllu", tmp_path / "bad.conllu"
    gold.write_text(GOLD, encoding="utf-8")
    pred.write_text(insert(strip(parse_one(GOLD)), Trivial().restore(parse_one(GOLD))).text(),
                    encoding="utf-8")
    bad.write_text(GOLD.replace("\tgo\t", "\tgone\t"), encoding="utf-8")
    assert main(["score", "--gold", str(gold), str(pred), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["edit_distance"] == 3 and result["marks"]["period"]["f1"] == 100.0
    assert main(["score", "--gold", str(gold), str(pred)]) == 0
    assert "per sentence 3.0000" in capsys.readouterr().out
    assert main(["score", "--gold", str(gold), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.conllu:1 (sent_id t): word 2 is 'gone'" in err


def test_a_name_with_a_separator_is_a_path_to_the_baseline_and_the_models_alike(monkeypatch):
    """One rule (:func:`has_separator`) for --trivial and --model: ``./en`` is a path to both,
    ``en`` a language and a bundled model."""
    for name in ("./en", "en/", "models/en", "/tmp/en"):
        assert has_separator(name) and is_path(name) and not is_bundled(name)
    for name in ("en", "hi", "x.rules"):
        assert not has_separator(name) and is_bundled(name) == (name != "x.rules")
    assert is_path("x.rules") and not is_path("en")
    folder = str(BUNDLED / "en")
    assert Trivial.load(folder) == Trivial(".", "en")
    rules = Path(__file__).parents[1] / "grammars" / "hi.rules"  # from any folder
    assert Trivial.load(rules) == Trivial.load("hi") == Trivial("।", "hi")
    # the rule of which names are a model's folder (its tagger/ and parser/), one for the
    # command and Trivial.load: a folder's path; a rule file's path or a language is none
    assert is_model_folder(folder) and not is_model_folder(str(rules))
    assert not is_model_folder("en") and not is_model_folder("hi.rules")


def test_trivial_baseline():
    sent = parse_one(GOLD)
    assert Trivial.for_language("hi").restore(sent) == [(), (), (), (("।", 2),)]
    assert Trivial.for_language("zh").mark == "."  # UD 1.4 Chinese writes the half-width stop
    with pytest.raises(InputError, match="'xx'"):
        Trivial.for_language("xx")
    assert Trivial("!").restore(strip(sent))[-1] == (("!", 2),)


def test_backoff_is_normalised_on_a_tiny_alphabet():
    s, alphabet, tags = 0.1, [",", "."], [EMPTY, ",", ", .", OTHER]
    q = Backoff(alphabet, tags, s)
    symbols, top = alphabet + ["<unk>"], 8
    known = {(), (",",), (",", ".")}
    total = math.fsum(math.exp(q.log_prob(x)) for m in range(top + 1)
                      for x in itertools.product(symbols, repeat=m) if x not in known)
    tail = s ** (top + 1) / math.exp(q.log_norm)  # strings longer than `top`
    assert total + tail == pytest.approx(1.0, abs=1e-12)


def test_crf_train_restore_and_perplexity(tmp_path, capsys):
    train_sents = [to_slots(s) for s in itertools.islice(treebank("en", "train").sentences(),
                                                         200)]
    dev = list(itertools.islice(treebank("en", "dev").sentences(), 60))
    model = train(train_sents, [to_slots(s) for s in dev], tmp_path / "crf", "en",
                  c2_grid=(0.1, 1.0), max_iterations=50, info={"train": "first 200"},
                  log=lambda m: None)
    meta = json.loads((tmp_path / "crf" / "meta.json").read_text(encoding="utf-8"))
    assert meta["lang"] == "en" and meta["settings"]["c2"] in (0.1, 1.0)
    assert set(meta["training"]["dev_perplexity"]) == {"0.1", "1.0"}
    assert OTHER not in meta["tags"] and EMPTY in meta["tags"]
    worded = [s for s in dev if not all(w.is_punct for w in s.words)]
    restored = [model.restore(strip(s)) for s in worded]
    assert all(len(r) == to_slots(s).n + 1 for r, s in zip(restored, worded, strict=True))
    assert sum(len(slot) for r in restored for slot in r) > 0
    unseen = parse_one(GOLD.replace("\t.\t.\t", "\t⁂\t⁂\t"))
    log_p, _, ppl = model.perplexity([to_slots(unseen)] + [to_slots(s) for s in dev])
    assert math.isfinite(log_p) and 1.0 < ppl < 3.0
    assert main(["crf", "perplexity", "--model", str(tmp_path / "crf"), str(SAMPLE)]) == 0
    assert "perplexity" in capsys.readouterr().out
    with pytest.raises(FstpunctError, match="not a CRF model"):
        CrfModel.load(tmp_path)


def test_a_compact_crf_stores_fewer_features(tmp_path):
    """L1 (``c1``), ``min_freq`` and ``min_tag_count`` leave weights out of the crfsuite file:
    a smaller model, its settings in meta.json; the CLI refuses negative values."""
    train_sents = [to_slots(s) for s in itertools.islice(treebank("en", "train").sentences(),
                                                         200)]
    dev = [to_slots(s) for s in itertools.islice(treebank("en", "dev").sentences(), 40)]
    sizes = {}
    tags = {}
    for name, c1, min_freq, min_tags in (("full", 0.0, 0.0, 2), ("l1", 1.0, 0.0, 2),
                                         ("freq", 0.0, 2.0, 2), ("tags", 0.0, 0.0, 10)):
        model = train(train_sents, dev, tmp_path / name, "en", c2_grid=(1.0,),
                      max_iterations=50, log=lambda m: None, c1=c1, min_freq=min_freq,
                      min_tag_count=min_tags)
        settings = model.meta["settings"]
        assert (settings["c1"], settings["feature_minfreq"], settings["min_tag_count"]) == \
            (c1, min_freq, min_tags)
        sizes[name] = (tmp_path / name / "crf.model").stat().st_size
        tags[name] = set(model.meta["tags"])
    assert sizes["l1"] < sizes["full"] / 2 and sizes["freq"] < sizes["full"]
    assert tags["tags"] < tags["full"] and sizes["tags"] < sizes["full"]
    assert main(["crf", "train", "--lang", "en", "--c1", "-1", "-o", str(tmp_path / "x")]) == 2


@pytest.mark.parametrize("c1, min_freq, c2", [(float("nan"), 0.0, 1.0), (0.0, float("nan"), 1.0),
                                              (-1.0, 0.0, 1.0), (0.0, 0.0, float("nan")),
                                              (0.0, 0.0, -1.0)])
def test_crf_train_refuses_a_negative_or_nan_setting(tmp_path, c1, min_freq, c2):
    """A NaN c1 (or c2 in the grid) used to train and write ``"c1": NaN`` (not JSON) into
    meta.json."""
    sents = [to_slots(s) for s in read_file(SAMPLE)]
    with pytest.raises(InputError,
                       match=r"^(c1|min_freq|c2) must be at least 0, not (nan|-1.0)$"):
        train(sents, sents, tmp_path / "crf", "en", c2_grid=(0.1, c2), c1=c1,
              min_freq=min_freq)
    assert not (tmp_path / "crf").exists()


@pytest.mark.parametrize("c1, min_freq, c2, name", [(math.inf, 0.0, 1.0, "c1"),
                                                    (0.0, math.inf, 1.0, "min_freq"),
                                                    (0.0, 0.0, math.inf, "c2")])
def test_crf_train_refuses_an_infinite_setting(tmp_path, capsys, c1, min_freq, c2, name):
    """+inf used to train and write ``"c1": Infinity`` (not JSON) into meta.json; the command
    line refuses it before reading anything."""
    sents = [to_slots(s) for s in read_file(SAMPLE)]
    with pytest.raises(InputError, match=f"^{name} must be a finite number of at least 0, "
                                         f"not inf$"):
        train(sents, sents, tmp_path / "crf", "en", c2_grid=(0.1, c2), c1=c1,
              min_freq=min_freq)
    assert not (tmp_path / "crf").exists()
    option = f"--{name.replace('_', '-')}"
    args = ["crf", "train", "--train", str(SAMPLE), "--dev", str(SAMPLE), "--lang", "en",
            option, "0.1,inf" if name == "c2" else "inf", "-o", str(tmp_path / "crf")]
    if name == "c2":
        with pytest.raises(SystemExit) as stop:
            main(args)
        assert stop.value.code == 2
    else:
        assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    said = "argument --c2: c2" if name == "c2" else option
    assert f"{said} must be a finite number of at least 0, not inf" in err, err
    assert not (tmp_path / "crf").exists()


@pytest.mark.parametrize("grid, value", [("0.1,nan", "nan"), ("1,-2", "-2.0")])
def test_crf_train_command_refuses_a_negative_or_nan_c2(grid, value, capsys):
    """``--c2 nan`` was taken (only a negative value was refused, naming none)."""
    with pytest.raises(SystemExit) as stop:
        main(["crf", "train", "--lang", "en", "--c2", grid, "-o", "x"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1, err
    assert f"argument --c2: c2 must be at least 0, not {value} " in err, err
