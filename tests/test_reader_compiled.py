"""The compiled sentence checks of the reader (fstpunct/ud/_reader.pyx) against the readable
reference: the same words, or the same error, on random trees with random faults."""
import gc
import sys
from dataclasses import dataclass

import conftest
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fstpunct.errors import ConlluError
from fstpunct.ud import _reader, treebank
from fstpunct.ud.treebank import read_conllu

HEADS = st.integers(0, 9).map(str) | st.sampled_from(["_", "10", "1.1"])
DEPS = st.sampled_from(["_", "0:root", "1:nsubj", "2:obj|3:conj", "1.1:nsubj", "9:dep",
                        "12:x", "3:a|1.1:b"])


@st.composite
def sentences(draw: st.DrawFn) -> str:
    """A random tree over 1-8 words with, at random, wrong heads, a second root, a cycle,
    HEAD '_', DEPS naming missing nodes, a multiword-token range, an empty node."""
    n = draw(st.integers(1, 8))
    order = draw(st.permutations(range(1, n + 1)))
    heads = {order[0]: "0"}
    for k, w in enumerate(order[1:], 1):
        heads[w] = str(order[draw(st.integers(0, k - 1))])
    for _ in range(draw(st.integers(0, 2))):  # faults
        heads[draw(st.integers(1, n))] = draw(HEADS)
    lines = [f"{w}\tw{w}\t_\tX\t_\t_\t{heads[w]}\tdep\t{draw(DEPS)}\t_" for w in range(1, n + 1)]
    if draw(st.booleans()):
        k = draw(st.integers(0, n - 1))
        lines.insert(k, f"{k + 1}-{k + draw(st.integers(1, 2))}\tww\t_\t_\t_\t_\t_\t_\t_\t_")
    if draw(st.booleans()):
        lines.append(f"{n}.{draw(st.integers(1, 2))}\te\t_\tX\t_\t_\t_\t_\t{draw(DEPS)}\t_")
    return "# sent_id = s\n" + "\n".join(lines) + "\n\n"


def outcome(text: str, tree: bool | None, finish) -> object:
    """The sentences read (their words and lines), or the error message."""
    saved = treebank._finish
    treebank._finish = finish
    try:
        return [(s.words, s.lines) for s in read_conllu(text.splitlines(keepends=True),
                                                         "x.conllu", tree)]
    except ConlluError as e:
        return str(e)
    finally:
        treebank._finish = saved


@given(sentences(), st.sampled_from([True, None, False]))
@example("# sent_id = s\n1\tw1\t_\tX\t_\t_\t0\tdep\t_\t_\n"
         "1.1\te\t_\tX\t_\t_\t_\t_\t1.2:nsubj\t_\n\n", True)  # an empty node's DEPS
def test_compiled_checks_equal_the_reference(text, tree):
    assert outcome(text, tree, treebank._finish) == \
        outcome(text, tree, treebank._finish_reference)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compiled_checks_equal_the_reference_on_dev(lang):
    text = conftest.treebank(lang, "dev").path.read_text(encoding="utf-8")
    assert outcome(text, True, treebank._finish) == \
        outcome(text, True, treebank._finish_reference)


@given(st.text(alphabet=st.sampled_from(list("0123456789-.a²٣\n ")), max_size=5)
       | st.text(max_size=4))
def test_is_word_is_the_word_id_pattern(ident):
    line = treebank.Line([ident] + ["_"] * 9, 1)
    assert line.is_word == (treebank._WORD_ID.match(ident) is not None)


@given(st.lists(st.tuples(st.text(alphabet=st.sampled_from(list("0123456789-.a²٣ ")),
                                  max_size=4) | st.text(max_size=3),
                          st.sampled_from(["_", "0", "1", "__", " _"])), max_size=6))
def test_compiled_has_tree_is_the_reference(ids_and_heads):
    sent = treebank.Sentence([], [treebank.Line([i, "w", "_", "X", "_", "_", h, "dep", "_", "_"],
                                                k) for k, (i, h) in enumerate(ids_and_heads)])
    assert treebank.has_tree(sent) == treebank.has_tree_reference(sent)


def test_compiled_has_tree_on_dev():
    sents = list(conftest.treebank("en", "dev").sentences())
    unparsed = treebank.rebuild(sents[0], [], [treebank.Line(ln.fields[:6] + ["_"] + ln.fields[7:],
                                                             ln.lineno) for ln in sents[0].lines],
                                tree=None)
    for sent in [*sents, unparsed]:
        assert treebank.has_tree(sent) == treebank.has_tree_reference(sent)
    assert not treebank.has_tree(unparsed)


FIELD = st.text(alphabet=st.sampled_from(list("a_ =|:.0123\u00a0\u2003é-\U0001f600")),
                max_size=6)
SHAPED = {0: st.sampled_from(["1", "12", "0", "01", "1-2", "3.1", "", " 1"]) | FIELD,
          5: st.sampled_from(["_", "A=b", "A=b|C=d", "A==b", "=b", "A=", "A=b||C=d", "A=b|",
                              "A b=c", "A=b\u00a0"]) | FIELD,
          6: st.sampled_from(["0", "1", "10", "01", "_", " 1", "1.1"]) | FIELD,
          8: st.sampled_from(["_", "0:root", "1:nsubj", "0.1:x", "1.1:x", "1.01:x", "01:x",
                              "1:", ":x", "1:a|2:b", "1:a||2:b", "1:a b", "1.1.1:x"]) | FIELD,
          9: st.sampled_from(["_", "SpaceAfter=No", "a|b", "|a", "a|", "a||b", " a", "a "])
          | FIELD}


@given(st.tuples(*(SHAPED.get(k, FIELD) for k in range(10))), st.integers(8, 11))
def test_the_line_scan_accepts_only_what_the_pattern_accepts(fields, count):
    text = "\t".join(fields[:count] if count <= 10 else fields + ("x",))
    if _reader.usual_line(text):
        assert treebank._QUICK.match(text)


def test_the_line_scan_accepts_the_usual_line():
    assert _reader.usual_line("1\tThe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t2\tdet\t2:det\t_")


def test_the_line_scan_on_en_dev_lines():
    text = conftest.treebank("en", "dev").path.read_text(encoding="utf-8")
    lines = [ln for ln in text.split("\n") if ln and not ln.startswith("#")]
    accepted = [ln for ln in lines if _reader.usual_line(ln)]
    assert all(treebank._QUICK.match(ln) for ln in accepted)
    assert len(accepted) > 0.9 * len(lines)  # the usual line is judged by the scan


LINES = st.sampled_from([
    "1\tw\t_\tX\t_\t_\t0\troot\t_\t_", "2\tw\t_\tX\t_\t_\t1\tdep\t_\t_",
    "2\tw\t_\tX\t_\tA=b\t1\tdep\t1:dep\tSpaceAfter=No", "1-2\tww\t_\t_\t_\t_\t_\t_\t_\t_",
    "1.1\te\t_\tX\t_\t_\t_\t_\t1:x\t_", "2\twé\t_\tX\t_\tA=é\t1\tdep\t_\t_",
    "2\tw\t_\tX\t_\t_\t_\tdep\t_\t_", "2\tw\t_\tX", "2\tw \t_\tX\t_\t_\t1\tdep\t_\t_",
    "2\tw\t_\tX\t_\t_\t1\tdep\t_\ta||b", "# sent_id = s", "# text = w w", "#", "", "   ",
    "\t", "2\tw\x00\t_\tX\t_\t_\t1\tdep\t_\t_", "2\tw\r\t_\tX\t_\t_\t1\tdep\t_\t_",
    "2\tw\udcff\t_\tX\t_\t_\t1\tdep\t_\t_", "2\tw\u2003\t_\tX\t_\t_\t1\tdep\t_\t_",
    "2\tw\U0001f600\t_\tX\t_\tA=\U0001f600\t1\tdep\t1:d\U0001f600\t_",
    "\u00a0", "3\tw\t_\tX\t_\t_\t1\tdep\t_\t_"])


def read_outcome(lines: list[str], tree: bool | None, read) -> object:
    """The sentences read (all they hold), or the error message."""
    try:
        return [(s.comments, s.lines, s.words, s.path, s.lineno, s.index, s.newline)
                for s in read(iter(lines), "x.conllu", tree)]
    except ConlluError as e:
        return str(e)


@given(st.lists(st.tuples(LINES, st.sampled_from(["\n", "\n", "\n", "\r\n", ""])),
                max_size=14),
       st.sampled_from([True, None, False]))
@example([("# a", "\n"), ("1\tw\t_\tX\t_\t_\t0\troot\t_\t_", "\n"), ("", "\n"),
          ("1\tw\t_\tX\t_\t_\t0\troot\t_\t_", "\r\n")], True)  # line ends change mid-file
def test_compiled_line_loop_equals_the_reference(pieces, tree):
    lines = [text + end for text, end in pieces]
    assert read_outcome(lines, tree, treebank.read_conllu) == \
        read_outcome(lines, tree, treebank.read_conllu_reference)


@pytest.mark.parametrize("lang", ["en", "zh", "ar"])
@pytest.mark.parametrize("split", ["dev", "test"])
def test_compiled_line_loop_equals_the_reference_on_treebanks(lang, split):
    text = conftest.treebank(lang, split).path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    assert read_outcome(lines, True, treebank.read_conllu) == \
        read_outcome(lines, True, treebank.read_conllu_reference)


@dataclass(slots=True)
class _Checked:
    value: str
    count: int

    def __post_init__(self) -> None:
        self.count += 1


@dataclass
class _Plain:
    value: str


def _fresh(value: object) -> object:
    """A new object like ``value`` that nothing else references (counts can be checked; an
    int made large: small ones are shared)."""
    return int(f"1{value:020d}") if isinstance(value, int) else \
        "".join(["", *str(value)]) if isinstance(value, str) else list(value)  # type: ignore


@pytest.mark.parametrize("cls, values", [
    (treebank.Word, (3, "dogs", "dog", "NOUN", "NNS", "Number=Plur", 2, "obj", "_", 7)),
    (treebank.Line, (["3", "dogs"] + ["_"] * 8, 7))])
def test_made_without_init_equals_made_by_init(cls, values):
    """The reader's words and lines, made without ``__init__``, are what ``__init__`` makes:
    equal, of the class, tracked by the collector, each value referenced once more while the
    object lives and no longer after."""
    values = tuple(_fresh(v) for v in values)
    maker = _reader.maker_of(cls)
    assert maker.direct
    before = [sys.getrefcount(v) for v in values]
    made = maker.make(*values)
    assert type(made) is cls and made == cls(*values) and gc.is_tracked(made)
    assert [sys.getrefcount(v) for v in values] == [b + 1 for b in before]
    made.lineno = 9  # the slots work as usual
    assert made.lineno == 9
    del made
    assert [sys.getrefcount(v) for v in values] == before
    with pytest.raises(TypeError):
        maker.make(*values[1:])


@pytest.mark.parametrize("cls, values, made", [(_Checked, ("a", 1), _Checked("a", 1)),
                                                (_Plain, ("a",), _Plain("a"))])
def test_a_class_whose_init_does_more_is_called(cls, values, made):
    maker = _reader.maker_of(cls)
    assert not maker.direct
    assert maker.make(*values) == made
