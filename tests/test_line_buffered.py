"""``Model.restore_lines``: each line answered before the next is read, as a one-line call of
``Model.restore`` answers it (width and quotes per line)."""
from __future__ import annotations

import pytest

import fstpunct
from fstpunct.errors import ConlluError

# zh: line 1 full-width, line 3 half-width, line 5 no marks (the model's forms, half-width, on
# its own; in one call, the first line's width for all)
ZH = ["我们 在 市场 买 了 苹果 ， 梨 和 李子 。\n", "\n", "他 说 , 明天 会 下雨 .\n", "  \n",
      "我们 明天 去 北京\n"]


@pytest.fixture(scope="module")
def zh() -> fstpunct.Model:
    return fstpunct.load("zh")


def test_each_line_is_answered_as_a_call_of_its_own(zh):
    """Line for line what restore gives each line alone: blank lines as blank lines, and width
    decided per line (one call on the whole text writes the last line in the first's width)."""
    alone = [zh.restore(line, text=True) for line in ZH]
    assert list(zh.restore_lines(ZH)) == alone
    assert alone[1] == alone[3] == "\n"
    whole = zh.restore("".join(ZH), text=True).splitlines(keepends=True)
    assert whole[0] == alone[0] and whole[2] != alone[2] and whole[4] != alone[4]


def test_no_line_is_pulled_before_the_answer_to_the_one_before(zh):
    pulled = []

    def lines():
        for k, line in enumerate(ZH, 1):
            pulled.append(k)
            yield line
    answers = zh.restore_lines(lines())
    assert pulled == []  # options checked, nothing read
    for k in range(1, len(ZH) + 1):
        next(answers)
        assert pulled == list(range(1, k + 1))
    assert next(answers, None) is None


def test_conllu_answers_and_blank_text(zh):
    """In CoNLL-U a blank line's answer is empty (the next sentence's # newpar); text of blank
    lines only comes back as text, and is "no sentences" as CoNLL-U."""
    answers = list(zh.restore_lines(ZH, format="conllu"))
    assert answers[1] == answers[3] == ""
    assert "# sent_id = 3" in answers[2] and "# newpar" in answers[2]
    assert answers[4].endswith("\n\n")
    assert list(zh.restore_lines([" \n", "\n"])) == ["\n", "\n"]
    with pytest.raises(ConlluError, match="no sentences"):
        list(zh.restore_lines([" \n"], format="conllu"))
    with pytest.raises(TypeError, match="iterable of strings"):
        zh.restore_lines("我们 去 北京")
    with pytest.raises(TypeError, match="pool"):
        zh.restore_lines(ZH, pool=None)
