"""fstpunct.ud.width's quote style: the quotes restore, correct and rephrase write come back
straight (``"``) or curly (``“ ”``) as the input writes them, ``# text`` too; words are never
changed (hand-made sentences)."""
import io

import pytest
from learner_pairs import GRAMMAR, conll, sentences
from pulled import Pulled

from fstpunct.api import load
from fstpunct.apps.correction.model import train as train_correction
from fstpunct.apps.text import restored_text
from fstpunct.fst.grammar import load_grammar
from fstpunct.model.punct import Settings
from fstpunct.model.store import load_model
from fstpunct.model.train import em, initial_model
from fstpunct.ud.slots import to_slots
from fstpunct.ud.treebank import read_conllu
from fstpunct.ud.width import Widths, quote_style

# "Go," she said.  (form, head, deprel)
QUOTED = [('"', 2, "punct"), ("Go", 6, "ccomp"), (",", 2, "punct"), ('"', 2, "punct"),
          ("she", 6, "nsubj"), ("said", 0, "root"), (".", 6, "punct")]


UPOS = {"Go": "VERB", "she": "PRON", "said": "VERB", "Jo": "PROPN", "the": "DET", "a": "DET",
        "big": "ADJ", "left": "VERB"}


def quoted(rows: list[tuple[str, int, str]], sent_id: str, drop: tuple[int, ...] = ()) -> str:
    """learner_pairs.conll's CoNLL-U of ``rows``, its words tagged by :data:`UPOS`."""
    out = []
    for line in conll(rows, sent_id, drop).splitlines(keepends=True):
        fields = line.split("\t")
        if len(fields) == 10 and fields[1] in UPOS:
            fields[3] = UPOS[fields[1]]
        out.append("\t".join(fields))
    return "".join(out)


def curly(conllu: str) -> str:
    """``conllu`` with each sentence's straight ``"`` tokens curly, opening then closing."""
    out, k = [], 0
    for line in conllu.splitlines(keepends=True):
        fields = line.split("\t")
        k = 0 if line.startswith("#") else k
        if len(fields) == 10 and fields[1] == '"':
            fields[1] = "“" if k % 2 == 0 else "”"
            k += 1
        out.append("\t".join(fields))
    return "".join(out)


def forms(conllu: str) -> list[str]:
    return [ln.split("\t")[1] for ln in conllu.splitlines() if ln[:1].isdigit()]


def texts(conllu: str) -> list[str]:
    return [ln[9:] for ln in conllu.splitlines() if ln.startswith("# text = ")]


@pytest.fixture(scope="module")
def en():
    return load("en")


def test_quote_style():
    assert [quote_style(t) for t in ['"', "'", "“", "”", "‘", "’", "‘’", ",", "«"]] == [
        "straight", "straight", "curly", "curly", "curly", "curly", None, None, None]


def test_restore_writes_the_input_quote_style(en):
    straight = quoted(QUOTED, "q")
    assert forms(curly(straight))[:4] == ["“", "Go", ",", "”"]
    out = en.restore(straight)
    assert forms(out) == ['"', "Go", ",", '"', "she", "said", "."]
    assert texts(out) == ['"Go," she said.']
    out = en.restore(curly(straight))
    assert forms(out) == ["“", "Go", ",", "”", "she", "said", "."]
    assert texts(out) == ["“Go,” she said."]


def test_a_sentence_without_quotes_takes_the_run_style(en):
    """Restore strips the input's marks: a sentence given without quotes gets them from the
    model, written in the style of the quotes of the run's other sentences, read ahead; with
    none, in the model's own (curly) forms."""
    plain = quoted(QUOTED, "bare", drop=(0, 3))
    assert '"' not in plain
    for given, mark in [(plain, "“"), (plain + quoted(QUOTED, "q"), '"'),
                        (plain + curly(quoted(QUOTED, "q")), "“")]:
        first = en.restore(given).split("\n\n")[0]
        assert forms(first)[0] == mark and texts(first)[0].startswith(mark), given
    assert en.restore(plain, width="half").split("\n\n")[0] == en.restore(plain).split(
        "\n\n")[0]
    forced = en.restore(plain + quoted(QUOTED, "q"), width="half")
    assert forms(forced)[0] == '"'  # a forced width: quotes still the input's


@pytest.fixture(scope="module")
def quote_corrector(tmp_path_factory):
    """A correction model of learners who leave out the comma inside a quotation (12 pairs;
    3 iterations, unlexicalised, as conftest.py's hand_corrector)."""
    learner_text = "".join(quoted(QUOTED, f"q{k}", drop=(2,)) for k in range(12))
    gold_text = "".join(quoted(QUOTED, f"q{k}") for k in range(12))
    originals = [to_slots(s) for s in sentences(learner_text)]
    fixed = [to_slots(s) for s in sentences(gold_text)]
    start = initial_model(originals, load_grammar(GRAMMAR), settings=Settings(lexical=0))
    learner, _ = em(start, start.prepare(originals), 2)
    model = train_correction(learner, originals, fixed, load_model("en"),
                             load_grammar(GRAMMAR), iterations=3, settings=Settings(lexical=0))
    return load(model.save(tmp_path_factory.mktemp("quotes") / "corrector"))


def test_correct_writes_the_input_quote_style(quote_corrector):
    learner = quoted(QUOTED, "q", drop=(2,))
    out = quote_corrector.correct(learner)
    assert forms(out) == ['"', "Go", ",", '"', "she", "said", "."]  # the comma corrected in
    assert texts(out) == ['"Go," she said.']
    out = quote_corrector.correct(curly(learner))
    assert forms(out) == ["“", "Go", ",", "”", "she", "said", "."]
    assert texts(out) == ["“Go,” she said."]


def test_rephrase_writes_the_input_quote_style(en):
    """Permuted (``half``: the underlying marks) or shortened (the quoted appositive deleted;
    ``full``: its slots drawn through the channel): the quotes rephrase writes are in the
    input's style (a mark that surfaced already kept its form; the run's style is new)."""
    rows = [("Jo", 9, "nsubj"), (",", 6, "punct"), ("the", 6, "det"), ('"', 5, "punct"),
            ("big", 6, "amod"), ("boss", 1, "appos"), ('"', 5, "punct"), (",", 6, "punct"),
            ("left", 0, "root"), ("a", 11, "det"), ('"', 12, "punct"), ("note", 9, "obj"),
            ('"', 12, "punct"), (".", 9, "punct")]
    straight = quoted(rows, "r")
    for given, quotes in [(straight, {'"'}), (curly(straight), {"“", "”"})]:
        for options in ({"method": "half"}, {"delete": "appos"}):
            out = en.rephrase(given, **options)
            assert {f for f in forms(out) if quote_style(f)} == quotes, (options, out)
            assert quotes & set(texts(out)[0])
    # a sentence of either style (a tie: the next sentence decides) is written in the run's
    mixed = quoted([("Jo", 7, "nsubj"), ("“", 4, "punct"), ("the", 4, "det"),
                    ("boss", 1, "appos"), (",", 4, "punct"), ('"', 4, "punct"),
                    ("left", 0, "root"), (".", 7, "punct")], "m")
    for given, quotes in [(mixed + straight, {'"'}), (mixed + curly(straight), {"“", "”"})]:
        out = en.rephrase(given, delete="det").split("\n\n")[0]
        assert {f for f in forms(out) if quote_style(f)} == quotes, out
        assert quotes & set(texts(out)[0])


def new_sentence(*marks: str, words: tuple[str, ...] = ("Go",)) -> str:
    """CoNLL-U of ``words`` (the first the root) then the punctuation ``marks``, each on the
    root, as a command makes it."""
    rows = [f"{k}\t{w}\t{w}\tX\t_\t_\t{0 if k == 1 else 1}\t{'root' if k == 1 else 'dep'}\t_\t_"
            for k, w in enumerate(words, 1)]
    rows += [f"{k}\t{m}\t{m}\tPUNCT\t_\t_\t1\tpunct\t_\t_"
             for k, m in enumerate(marks, len(words) + 1)]
    return "# sent_id = new\n" + "\n".join(rows) + "\n\n"


def written_as(style_of: str, made: str) -> list[str]:
    """The forms of the new sentence ``made`` as a run whose input is ``style_of`` writes it."""
    run = Widths({",", "."}, "input")
    list(run.read(read_conllu(io.StringIO(style_of))))
    return [w.form for w in next(run.write(read_conllu(io.StringIO(made)))).words]


def test_only_punctuation_quotes_are_written_and_words_stay():
    straight, curled = quoted(QUOTED, "s"), curly(quoted(QUOTED, "c"))
    made = new_sentence("“", "”", "'", words=("Go", "don't", "’s", "'s"))
    assert written_as(straight, made) == ["Go", "don't", "’s", "'s", '"', '"', "'"]
    assert written_as(curled, made) == ["Go", "don't", "’s", "'s", "“", "”", "’"]
    assert written_as(curled, new_sentence('"', "x", '"')) == ["Go", "“", "x", "”"]


def test_a_quote_whose_direction_would_not_read_back_stays_curly():
    """A lone closing quote before its head would read as opening written straight
    (:func:`~fstpunct.ud.slots.quote_symbols`): it stays curly, so the sentence reads (and
    scores) as the model wrote it; a lone quote whose direction reads back is written
    straight."""
    straight = quoted(QUOTED, "s")
    before = "# sent_id = new\n1\t”\t”\tPUNCT\t_\t_\t2\tpunct\t_\t_\n" \
             "2\tGo\tGo\tX\t_\t_\t0\troot\t_\t_\n\n"
    assert written_as(straight, before) == ["”", "Go"]
    assert written_as(straight, before.replace("”", "“")) == ['"', "Go"]
    assert written_as(straight, new_sentence("”")) == ["Go", '"']


def test_the_quote_search_reads_on_over_a_tie():
    tie = quoted(QUOTED, "a").replace('4\t"', "4\t”")  # one straight, one curly
    for doc, style in [(tie, None), (tie + quoted(QUOTED, "b"), "straight"),
                       (tie + curly(quoted(QUOTED, "b")), "curly"),
                       (quoted(QUOTED, "c", drop=(0, 3)), None)]:
        run = Widths({",", "."}, "input")
        list(run.read(read_conllu(io.StringIO(doc))))
        assert run.quotes == style, doc
    given = Pulled(read_conllu(io.StringIO(tie + quoted(QUOTED, "b") * 3)))
    next(Widths({",", "."}, "half").read(given))  # a forced width reads ahead for the quotes
    assert given.count == 2


class _CurlyQuoter:
    """A restorer writing ``“Go,” she said.`` for the words ``Go she said``: the model's curly
    forms, as a CRF's or the trivial baseline's marks (``tokens``) are written."""

    tokens = ("“", "”", ",", ".")

    def restore(self, sent, alternatives=()):
        return [(("“", 1),), ((",", 1), ("”", 1)), (), ((".", 3),)]


def test_restored_text_by_a_method_writes_the_input_quote_style():
    """restore --crf/--trivial and text restoration (apps.text.restored_text, a Widths of the
    method's tokens, not Model.restore) write quotes in the input's style with a width, the
    method's own without."""
    def restored(conllu: str, width: str | None) -> str:
        sents = restored_text(read_conllu(io.StringIO(conllu)), _CurlyQuoter(), [], None,
                              pytest.fail, width=width)  # (trees given: no pipeline)
        return "".join(s.text() for s in sents)
    straight = quoted(QUOTED, "q")
    for given, width, mark in [(straight, "input", '"'), (curly(straight), "input", "“"),
                               (straight, "half", '"'), (straight, None, "“")]:
        out = restored(given, width)
        closing = '"' if mark == '"' else "”"
        assert forms(out) == [mark, "Go", ",", closing, "she", "said", "."], (width, given)
        assert texts(out) == [f"{mark}Go,{closing} she said."]
