"""Punctuation of either width (fstpunct.ud.width): the bundled zh model, trained on UD 1.4's
half-width marks, reads full-width Chinese as it reads the same text written half-width, and
what a command writes comes back in the input's width. Fixture: tests/data/zh-fullwidth.conllu,
hand-made sentences written with ``，。：（）？！`` (``！``: no twin the model knows) and the
marks UD 1.4 writes full-width itself (``、「」``, never folded)."""
import io
import json
import re
import warnings
from pathlib import Path

import pytest
from pulled import Pulled
from test_ud_valid import UDVALIDATE, highest_level
from test_viewer import data

import fstpunct
from fstpunct.apps.restoration.crf import CrfModel
from fstpunct.apps.restoration.trivial import Trivial
from fstpunct.apps.text import restored_text
from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.model.store import BUNDLED
from fstpunct.ud.treebank import read_conllu
from fstpunct.ud.width import Widths, full, half, width_of

FIXTURE = Path(__file__).parent / "data" / "zh-fullwidth.conllu"
# the twins, written out here (not taken from the module under test)
TO_HALF = str.maketrans("，。：；？！（）", ",.:;?!()")
TO_FULL = str.maketrans(",.:;?!()", "，。：；？！（）")
HALF_MARKS = set(",.:;?!()")


@pytest.fixture(scope="module")
def zh():
    return fstpunct.load("zh")


@pytest.fixture(scope="module")
def full_text():
    return FIXTURE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def half_text(full_text):
    return full_text.translate(TO_HALF)


@pytest.fixture
def half_path(tmp_path, half_text):
    """The half-width twin of the fixture, as a file."""
    path = tmp_path / "half.conllu"
    path.write_text(half_text, encoding="utf-8")
    return path


def marks(conllu: str) -> list[str]:
    return [ln.split("\t")[1] for ln in conllu.splitlines()
            if ln[:1].isdigit() and ln.split("\t")[3] == "PUNCT"]


def texts(conllu: str) -> list[str]:
    return [ln for ln in conllu.splitlines() if ln.startswith("# text = ")]


def test_twins():
    assert [half(t) for t in ("，", "。", "．", "（", "！", "、", "「", "--")] == \
        [",", ".", ".", "(", "!", "、", "「", "--"]
    assert [full(t) for t in (",", ".", "(", "?", "...", "-", "、")] == \
        ["，", "。", "（", "？", "...", "-", "、"]
    assert [width_of(t) for t in ("，", "。", ",", "、", "-")] == ["full", "full", "half", None,
                                                                  None]


def test_only_marks_the_model_does_not_know_are_read_as_their_twin():
    w = Widths({",", "，", ".", "?"})
    assert [w.fold(t) for t in ("，", ",", "。", "．", "？", "！", "、")] == \
        ["，", ",", ".", ".", "?", "！", "、"]
    assert Widths({"，", "。"}).fold(".") == "。"  # a model of full-width marks reads half ones


def test_full_width_reads_as_the_half_width_twin_without_warning(zh, full_text, half_text):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "unknown to the model" warning
        full_lp = zh.log_prob(full_text)
    assert full_lp == pytest.approx(zh.log_prob(half_text), abs=1e-9)
    assert zh.perplexity(full_text).value == pytest.approx(zh.perplexity(half_text).value)
    assert zh.unknown_share(read_conllu(io.StringIO(half_text))) == (11, 1)  # ！ alone


def test_decode_keeps_the_input_and_analyses_it_as_the_twin(zh, full_text, half_text):
    decoded = zh.decode(full_text)
    assert decoded.translate(TO_HALF) == zh.decode(half_text)
    columns = [ln.split("\t")[:9] for ln in decoded.splitlines() if ln[:1].isdigit()]
    assert columns == [ln.split("\t")[:9] for ln in full_text.splitlines() if ln[:1].isdigit()]
    assert texts(decoded) == texts(full_text)
    normalised = zh.normalise(full_text)
    assert marks(normalised) == marks(full_text) and texts(normalised) == texts(full_text)


def test_restore_writes_the_input_width(zh, full_text, half_text):
    restored = zh.restore(full_text)
    half_restored = zh.restore(half_text)
    assert restored == half_restored.translate(TO_FULL)
    assert not HALF_MARKS & set(marks(restored)) and "。" in marks(restored)
    assert all("。" in t for t in texts(restored))  # '# text' rebuilt full-width
    assert HALF_MARKS & set(marks(half_restored))  # half-width input: the model's forms
    assert zh.restore(half_text, width="full") == restored
    assert zh.restore(full_text, width="half") == half_restored
    with pytest.raises(InputError, match="width must be one of"):
        zh.restore(full_text, width="wide")


def test_a_sentence_of_marks_only_comes_back_as_written(zh):
    only = "# sent_id = p\n# text = （！）\n1\t（\t（\tPUNCT\t_\t_\t0\troot\t_\tSpaceAfter=No\n" \
           "2\t！\t！\tPUNCT\t_\t_\t1\tpunct\t_\tSpaceAfter=No\n3\t）\t）\tPUNCT\t_\t_\t1\tpunct\t_\t_\n\n"
    with pytest.warns(UserWarning):
        assert zh.restore(only) == only


BARE = "# sent_id = bare\n# text = 你去北京嗎\n" + "".join(  # a sentence without marks
    f"{k}\t{w}\t{w}\t{u}\t_\t_\t{h}\t{r}\t_\t{'_' if k == 4 else 'SpaceAfter=No'}\n"
    for k, w, u, h, r in [(1, "你", "PRON", 2, "nsubj"), (2, "去", "VERB", 0, "root"),
                          (3, "北京", "PROPN", 2, "dobj"),
                          (4, "嗎", "PART", 2, "discourse")]) + "\n"


def test_a_sentence_without_marks_takes_the_document_width(zh, full_text, half_text):
    """The width is the first marked sentence's, read ahead of an unmarked first sentence:
    full-width for the zh model (whose own forms are half-width); half-width for a model of
    full-width marks, whose own forms a new sentence would otherwise have."""
    for text in (full_text + BARE, BARE + full_text):
        restored = [s.text() for s in read_conllu(io.StringIO(zh.restore(text)))]
        bare = next(s for s in restored if "sent_id = bare" in s)
        assert marks(bare) and not HALF_MARKS & set(marks(bare))
    assert marks(zh.restore(BARE)) == ["."]  # no width shown: the model's forms
    fulls = set("，。？：（）")
    for text, written in [(BARE + half_text, "."), (BARE, "。"), (BARE + full_text, "。")]:
        w = Widths(fulls, "input")
        first = next(w.read(read_conllu(io.StringIO(text))))
        assert first.sent_id == "bare"  # given first; a new sentence made of it now:
        new = next(w.write(read_conllu(io.StringIO(marked("。")))))
        assert [word.form for word in new.words[1:]] == [written], text[:40]


def test_rephrase_writes_the_input_width(zh, full_text):
    out = zh.rephrase(full_text, delete="appos")
    assert not HALF_MARKS & set(marks(out)) and "：" in marks(out)


def svg_texts(svg: str, kind: str) -> list[str]:
    """The texts of the SVG's ``<text>`` elements of class ``kind`` (``x``: surface tokens,
    ``m``: underlying marks, ``caption``), any ``<title>`` left out."""
    return re.findall(rf'<text class="{kind}[^"]*"[^>]*>(?:<title>[^<]*</title>)?([^<]*)</text>',
                      svg)


def sentence_caption(svg: str) -> str:
    """The caption of a tree's sentence: the one with its log p."""
    return next(c for c in svg_texts(svg, "caption") if "log p" in c)


def test_show_and_draw_print_the_input_forms(zh, full_text, half_text, tmp_path):
    """Pictures of full-width input are those of its half-width twin (the same analysis: the
    underlying marks, in the model's forms, and log p), but print the surface tokens and the
    sentence as the input wrote them."""
    tree, half_tree = zh.draw_tree(full_text, 1), zh.draw_tree(half_text, 1)
    assert svg_texts(tree, "x") == ["，", "。"] and svg_texts(half_tree, "x") == [",", "."]
    assert svg_texts(tree, "m") == svg_texts(half_tree, "m") == ["∘", ",", "、", "."]
    caption, half_caption = (sentence_caption(t) for t in (tree, half_tree))
    assert "我喜歡蘋果，也喜歡香蕉。" in caption
    assert caption.split("log p")[1] == half_caption.split("log p")[1]
    bare = "".join(ln + "\n" for ln in full_text.split("\n\n")[0].splitlines()
                   if not ln.startswith("# text"))  # no '# text': the words are the line
    assert "我 喜歡 蘋果 ， 也 喜歡 香蕉 。" in sentence_caption(zh.draw_tree(bare + "\n", 1))
    for slot, surface in [(3, "，"), (6, "。"), (0, "∘")]:
        lattice, half_lattice = (zh.draw_lattice(t, slot).source for t in (full_text, half_text))
        assert f"surface ⟨{surface}⟩," in lattice  # the lattice itself is the model's:
        assert lattice.replace(surface, surface.translate(TO_HALF)) == half_lattice
    pages = [tmp_path / "full.html", tmp_path / "half.html"]
    for doc, page in zip((full_text, half_text), pages):
        zh.show(doc, page, title="t")
    full, half_ = (data(page.read_text(encoding="utf-8"))["sentences"] for page in pages)
    assert [r["t"] for r in full] == [t.removeprefix("# text = ") for t in texts(full_text)]
    surfaces = [[slot[0] for slot in r["s"]] for r in full]
    assert [[[t.translate(TO_HALF) for t in x] for x in r] for r in surfaces] == \
        [[slot[0] for slot in r["s"]] for r in half_]
    assert [t for r in surfaces for x in r for t in x] == marks(full_text)
    # the viewer says the edit path's steps write the model's forms where x was read so
    read = set("，。：；？（）")  # (！: no twin the model knows)
    for r, h in zip(full, half_):  # all but the words' pictures and surfaces
        assert [slot[1:5] for slot in r["s"]] == [slot[1:5] for slot in h["s"]]
        assert (r["lp"], r["k"], r["w"]) == (h["lp"], h["k"], h["w"])
        assert [slot[5] for slot in r["s"]] == [int(bool(read & set(slot[0]))) for slot in r["s"]]
        assert not any(slot[5] for slot in h["s"])


def test_text_in_either_width(zh):
    with pytest.warns(UserWarning, match="1 of 2 punctuation tokens"):  # ！: no known twin
        assert zh.restore("他 說 ： 天氣 很 好 ！\n", text=True).endswith("。\n")
    bare = "然而 這樣 的 處理 也 衍生 了 一些 問題\n"
    assert zh.restore(bare, text=True) == "然而 這樣 的 處理 也 衍生 了 一些 問題.\n"
    assert zh.restore(bare, text=True, width="full") == "然而 這樣 的 處理 也 衍生 了 一些 問題。\n"


def test_parsing_constrained_by_punctuation_reads_the_twins(half_path, capsys):
    """fstpunct parse --punct-model: the trees of the half-width twin (beam 8, weight 32: the
    trees differed with full-width marks read as <unk>), the input's marks kept."""
    outs = []
    for path in (FIXTURE, half_path):
        assert main(["parse", "--model", str(BUNDLED / "zh" / "parser"), "--beam", "8",
                     "--punct-model", "zh", str(path)]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0].translate(TO_HALF) == outs[1]
    assert marks(outs[0]) == marks(FIXTURE.read_text(encoding="utf-8"))


def test_cli_width(tmp_path, half_path, zh, full_text):
    out = tmp_path / "out.conllu"
    assert main(["restore", "--model", "zh", "--width", "full", str(half_path), "-o",
                 str(out)]) == 0
    assert out.read_text(encoding="utf-8") == zh.restore(full_text)


@pytest.mark.parametrize("method", [["--trivial", "zh"],
                                    ["--crf", str(BUNDLED / "zh" / "text" / "crf")]])
def test_restore_by_crf_or_trivial_writes_the_input_width(half_path, method, capsys):
    """restore --crf and --trivial (marks as their training data or rule file writes them,
    half-width for zh) go through the model's restore's width path: full-width input gets
    full-width marks and '# text', half-width input the method's own; --width forces one."""
    outs = {}
    for path, width in [(FIXTURE, []), (half_path, []), (FIXTURE, ["--width", "half"]),
                        (half_path, ["--width", "full"]), (FIXTURE, ["--jobs", "2"])]:
        assert main(["restore", *method, *width, "--quiet", str(path)]) == 0
        outs[" ".join([path.name, *width])] = capsys.readouterr().out
    full, half_ = outs[FIXTURE.name], outs[half_path.name]
    assert "。" in marks(full) and not HALF_MARKS & set(marks(full))
    assert all("。" in t for t in texts(full))
    assert HALF_MARKS & set(marks(half_)) and full == half_.translate(TO_FULL)
    assert outs[f"{FIXTURE.name} --width half"] == half_
    assert outs[f"{half_path.name} --width full"] == full
    assert outs[f"{FIXTURE.name} --jobs 2"] == full


@pytest.mark.parametrize("method", ["trivial", "crf"])
def test_restored_text_by_crf_or_trivial_writes_the_input_width(full_text, half_text, method):
    """The library's restore by a CRF or the trivial baseline (apps.text.restored_text, what
    restore --crf and --trivial run) takes a width as the model's restore does: full-width
    input gets full-width marks, half-width input the method's own; none given: the method's
    own forms whatever the input."""
    restorer = Trivial.for_language("zh") if method == "trivial" else \
        CrfModel.load(BUNDLED / "zh" / "text" / "crf")

    def restored(text: str, width: str | None) -> str:
        sents = restored_text(read_conllu(io.StringIO(text)), restorer, [], None,
                              pytest.fail, width=width)  # (trees given: no pipeline)
        return "".join(s.text() for s in sents)
    full, half_ = restored(full_text, "input"), restored(half_text, "input")
    assert "。" in marks(full) and not HALF_MARKS & set(marks(full))
    assert HALF_MARKS & set(marks(half_)) and full == half_.translate(TO_FULL)
    assert restored(half_text, "full") == full and restored(full_text, "half") == half_
    assert restored(full_text, None) == half_


@pytest.mark.skipif(UDVALIDATE is None, reason="udtools (the dev extra) is not installed")
def test_outputs_reread_and_validate_as_the_input(zh, full_text, tmp_path):
    level = highest_level(FIXTURE, "zh")
    assert level >= 1
    for name, out in [("decode", zh.decode(full_text)), ("restore", zh.restore(full_text)),
                      ("normalise", zh.normalise(full_text))]:
        path = tmp_path / f"{name}.conllu"
        path.write_text(out, encoding="utf-8")
        assert "".join(s.text() for s in read_conllu(io.StringIO(out))) == out
        assert highest_level(path, "zh") >= level, name
    redecoded = zh.decode(zh.restore(full_text))
    assert texts(redecoded) == texts(zh.restore(full_text))


def recorded(conllu: str) -> Pulled:
    """The sentences of a CoNLL-U text, counting how many were read (``count``)."""
    return Pulled(read_conllu(io.StringIO(conllu)))


def test_commands_that_make_no_new_sentence_stream(zh, full_text):
    """No read-ahead for the input's width but where new sentences are written in it: a
    Widths without a width gives sentence 1 having read sentence 1 only, decode, normalise and
    log_prob read no more than their own chunk (500), not the 1,000 of the width's search."""
    given = recorded(BARE * 3 + full_text)
    assert next(Widths(zh.punct.vocab.tokens).read(given)).sent_id == "bare"
    assert given.count == 1
    given = recorded(BARE * 3 + full_text)
    next(Widths(zh.punct.vocab.tokens, "input").read(given))
    # to the first marked sentence, then on for the quote style: to the end (none has a quote)
    assert given.count == 3 + len(list(read_conllu(io.StringIO(full_text))))
    given = recorded(BARE * 3 + full_text.replace("\t，\t", '\t"\t', 1) + BARE * 3)
    next(Widths(zh.punct.vocab.tokens, "input").read(given))
    assert given.count == 4  # the first marked sentence decides both
    for run in (zh.decode, zh.normalise, zh.log_prob):
        given = recorded(BARE * 1100)
        next(iter(run(given)))
        assert given.count <= 500, run.__name__


def test_write_back_keeps_the_lemma(zh):
    """Only FORM is read as the twin, so only FORM is written back: form ， lemma , stays so."""
    sent = BARE.replace("# text = 你去北京嗎", "# text = 你去，北京嗎").replace(
        "2\t去\t去\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No\n",
        "2\t去\t去\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
        "3\t，\t,\tPUNCT\t_\t_\t2\tpunct\t_\tSpaceAfter=No\n").replace(
        "3\t北京\t北京\tPROPN\t_\t_\t2", "4\t北京\t北京\tPROPN\t_\t_\t2").replace(
        "4\t嗎\t嗎\tPART\t_\t_\t2", "5\t嗎\t嗎\tPART\t_\t_\t2")
    assert "3\t，\t,\tPUNCT" in sent
    forms = [ln.split("\t")[:3] for ln in sent.splitlines() if ln[:1].isdigit()]
    for out in (zh.decode(sent), zh.normalise(sent)):  # (normalise may move the mark's head)
        assert [ln.split("\t")[:3] for ln in out.splitlines() if ln[:1].isdigit()] == forms


def marked(*sentences: str) -> str:
    """CoNLL-U of sentences of one word and the marks of each string, one a character."""
    out = ""
    for k, chars in enumerate(sentences, 1):
        lines = ["1\t我\t我\tPRON\t_\t_\t0\troot\t_\t_"] + [
            f"{i}\t{m}\t{m}\tPUNCT\t_\t_\t1\tpunct\t_\t_" for i, m in enumerate(chars, 2)]
        out += f"# sent_id = s{k}\n" + "\n".join(lines) + "\n\n"
    return out


def test_the_width_search_reads_on_over_a_tie():
    for doc, width in [(marked("，,", "。"), "full"), (marked("，,", "", ".!"), "half"),
                       (marked("，,", "、"), None), (marked("，，.", ","), "full")]:
        w = Widths({",", "."}, "input")
        list(w.read(read_conllu(io.StringIO(doc))))
        assert w.width == width, doc


def reference_fold(known: set[str], token: str) -> str:
    """Widths.fold as the module docstring says it, character by character."""
    def half_char(c):
        return chr(ord(c) - 0xFEE0) if 0xFF01 <= ord(c) <= 0xFF5E else "." if c == "。" else c
    if token in known:
        return token
    for twin in ("".join(map(half_char, token)), {",": "，", ".": "。", ";": "；", ":": "：",
                                                  "?": "？", "!": "！", "(": "（",
                                                  ")": "）"}.get(token, token)):
        if twin != token and twin in known:
            return twin
    return token


def test_fold_against_the_reference(zh):
    singles = [chr(c) for c in range(0x21, 0x7F)] + [chr(c) for c in range(0xFF01, 0xFF5F)] + \
        ["。", "、", "「", "…", "—", "a", "北京"]
    tokens = singles + [a + b for a in ",.，．。!！-－" for b in ",.，．。!！-－"] + \
        ["...", "．．．", "。。。", "!!!!!!", "！！！！！！", "!！!！!！", "--", "－－"]
    en = fstpunct.load("en")
    for known in (set(zh.punct.vocab.tokens), set(en.punct.vocab.tokens), {"，", "。", "！！"},
                  {",", "。", "...", "--", "!!"}, set()):
        w = Widths(known)
        assert [w.fold(t) for t in tokens] == [reference_fold(known, t) for t in tokens]
        # reading: a punctuation word's form (and line) as the reference folds it, only those
        doc = "".join(f"1\tw\tw\tX\t_\t_\t0\troot\t_\t_\n2\t{t}\t{t}\tPUNCT\t_\t_\t1\tpunct\t_\t_\n"
                      f"3\t{t}\t{t}\tX\t_\t_\t1\tdep\t_\t_\n\n" for t in tokens)
        read = list(w.read(read_conllu(io.StringIO(doc))))
        assert [s.words[1].form for s in read] == [reference_fold(known, t) for t in tokens]
        assert [s.lines[1].fields[1] for s in read] == [s.words[1].form for s in read]
        assert [s.words[2].form for s in read] == tokens


def test_a_document_mixing_widths(zh, full_text, half_text):
    """Sentences of either width in one input: each read as the model reads its half-width twin,
    decode keeps each token as written, restore writes one width (the first marked sentence's)."""
    full, half_ = full_text.split("\n\n"), half_text.split("\n\n")
    mixed = "\n\n".join(f if k % 2 == 0 else h for k, (f, h) in enumerate(zip(full, half_)))
    assert mixed != full_text and mixed != half_text and mixed.translate(TO_HALF) == half_text
    assert zh.log_prob(mixed) == pytest.approx(zh.log_prob(half_text), abs=1e-9)
    decoded = zh.decode(mixed)
    assert decoded.translate(TO_HALF) == zh.decode(half_text)
    assert marks(decoded) == marks(mixed)
    assert zh.restore(mixed) == zh.restore(full_text)  # the first sentence is full-width
    half_first = "\n\n".join(h if k % 2 == 0 else f for k, (f, h) in enumerate(zip(full, half_)))
    assert zh.restore(half_first) == zh.restore(half_text)


@pytest.mark.parametrize("command", ["decode", "restore"])
def test_two_jobs_write_what_one_writes(tmp_path, full_text, command, capsys):
    """--jobs 2 on full-width input (chunks folded in the parent, written back after the
    workers): the output of --jobs 1, byte for byte; 600 sentences, more than one chunk."""
    path = tmp_path / "in.conllu"
    path.write_text("".join(full_text.replace("sent_id = zhw-", f"sent_id = {k}-")
                            for k in range(150)), encoding="utf-8")
    outs = []
    for jobs in ("1", "2"):
        assert main([command, "--model", "zh", "--jobs", jobs, "--quiet", str(path)]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and "。" in marks(outs[0]) and not HALF_MARKS & set(marks(outs[0]))


def as_written(sents) -> list[list[str]]:
    """Every line of ``sents`` and every word's fields, as the sentences now hold them."""
    return [["\t".join(ln.fields) for ln in s.lines] + [repr(w) for w in s.words] + s.comments
            for s in sents]


def failing(sents, after: int):
    """The sentences ``sents``, then an exception after ``after`` of them."""
    yield from sents[:after]
    raise RuntimeError("the input failed")


def test_the_callers_own_sentences_stay_as_written(zh, full_text, half_text, tmp_path):
    """A caller's own Sentences stay as written (every line, word and comment) whatever a
    method does with them: gives values (log_prob, perplexity), draws or shows them, gives back
    their changed copies (decode, normalise: every fixture sentence has a mark to fold, so
    none is changed in place), makes new sentences of them (restore, rephrase), is abandoned
    after one answer or ended by an exception of the input. Before: each left them folded.
    Their ``folded`` (in no repr) stays None too, also where nothing folds (half-width input):
    before, restore and rephrase left it {}, which a later run's write-back reads."""
    runs = {"log_prob": lambda s: list(zh.log_prob(s)), "perplexity": zh.perplexity,
            "draw_tree": lambda s: zh.draw_tree(s, 2),
            "draw_lattice": lambda s: zh.draw_lattice(s, 2, 3),
            "show": lambda s: zh.show(s, tmp_path / "show.html"),
            "decode": lambda s: list(zh.decode(s)), "normalise": lambda s: list(zh.normalise(s)),
            "restore": lambda s: list(zh.restore(s)),
            "rephrase": lambda s: list(zh.rephrase(s, delete="appos")),
            "decode, abandoned": lambda s: next(iter(zh.decode(s))),
            "restore, abandoned": lambda s: next(iter(zh.restore(s)))}
    expected = as_written(read_conllu(io.StringIO(full_text)))
    for name, run in runs.items():
        sents = list(read_conllu(io.StringIO(full_text)))
        run(sents)
        assert as_written(sents) == expected, name
        assert all(s.folded is None for s in sents), name
        sents = list(read_conllu(io.StringIO(half_text)))
        run(sents)
        assert all(s.folded is None for s in sents), f"{name}, half-width"
    for name, run in [("decode", zh.decode), ("restore", zh.restore), ("log_prob", zh.log_prob)]:
        sents = list(read_conllu(io.StringIO(full_text)))
        with pytest.raises(RuntimeError, match="the input failed"):
            list(run(failing(sents, 2)))
        assert as_written(sents) == expected, f"{name}, the input failing"
        assert all(s.folded is None for s in sents), f"{name}, the input failing"
    decoded = list(zh.decode(list(read_conllu(io.StringIO(full_text)))))
    assert "".join(s.text() for s in decoded) == zh.decode(full_text)  # what is given back


def slotted(name: str, slots: list[str]) -> str:
    """A sentence of the words 我 喜歡 蘋果 (喜歡 the root, every other token its dependent)
    with the marks ``slots[i]`` (one a character) after word i (slot 0: before the first)."""
    tokens = []
    for i, chars in enumerate(slots):
        tokens += [(m, "PUNCT", "punct") for m in chars]
        if i < 3:
            tokens.append((["我", "喜歡", "蘋果"][i], "X", "root" if i == 1 else "dep"))
    root = next(k for k, t in enumerate(tokens, 1) if t[2] == "root")
    lines = [f"{k}\t{f}\t{f}\t{u}\t_\t_\t{0 if r == 'root' else root}\t{r}\t_\t_"
             for k, (f, u, r) in enumerate(tokens, 1)]
    return f"# sent_id = {name}\n" + "\n".join(lines) + "\n\n"


def test_score_says_how_many_edits_differ_in_width_only(tmp_path, capsys):
    """Exact comparison stays (， against , is an edit); a second line counts the edits that
    are width only. By hand, per sentence (exact edits, width-only):
    1. slot 1 ， / ,   slot 3 。 / .       -> 2, 2 (both are twins)
    2. slot 1 ， / .   slot 3 。 / 。      -> 1, 0 (， against . is an error either way)
    3. slot 1 ， / , ,   slot 2 、 / ,     -> 2 + 1, 1 (read as one: , against , , is 1 edit;
       、 has no twin)
    Total 6 edits, of which 3 width only; 3 either width read as one."""
    gold = slotted("a", ["", "，", "", "。"]) + slotted("b", ["", "，", "", "。"]) + \
        slotted("c", ["", "，", "、", ""])
    pred = slotted("a", ["", ",", "", "."]) + slotted("b", ["", ".", "", "。"]) + \
        slotted("c", ["", ",,", ",", ""])
    paths = [tmp_path / "gold.conllu", tmp_path / "pred.conllu"]
    for path, text in zip(paths, (gold, pred)):
        path.write_text(text, encoding="utf-8")
    assert main(["score", "--gold", str(paths[0]), str(paths[1])]) == 0
    first, second = capsys.readouterr().out.splitlines()[:2]
    assert first.endswith("edit distance 6  per sentence 2.0000")
    assert second == ("of which 3 differ in width only (， against ,): either width read as "
                      "one, edit distance 3  per sentence 1.0000")
    assert main(["score", "--gold", str(paths[0]), str(paths[1]), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["edit_distance"], result["width_only_edits"]) == (6, 3)
    assert (result["width_blind_edit_distance"],  # as the text's second line
            result["average_width_blind_edit_distance"]) == (3, 1.0)
    assert result["sentence_edits"] == [2, 1, 3]
    assert main(["score", "--gold", str(paths[0]), str(paths[0])]) == 0
    assert "of which 0 differ in width only" in capsys.readouterr().out


def test_crf_perplexity_reads_the_twins(half_path, capsys):
    """fstpunct crf perplexity reads a mark its CRF does not know as its width twin, as the
    model's perplexity does: full-width input scores as its half-width twin (before: its
    full-width marks were strings the CRF never saw)."""
    outs = []
    for path in (FIXTURE, half_path):
        assert main(["crf", "perplexity", "--model", str(BUNDLED / "zh" / "text" / "crf"),
                     str(path)]) == 0
        outs.append(capsys.readouterr().out.split("\t", 1)[1])
    assert outs[0] == outs[1]
