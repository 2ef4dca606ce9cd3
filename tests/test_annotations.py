"""The analysis decode writes into CoNLL-U (fstpunct/ud/annotations.py) and the comments of a
sentence: the fast paths (a MISC column without any key or ``_`` item kept as it is; a comment
tested for its key before the pattern) give what the item-by-item rules give."""
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fstpunct.ud.annotations import MISC_KEYS, set_misc
from fstpunct.ud.treebank import Sentence

_ITEMS = ["_", "", "SpaceAfter=No", "PunctL=ε", "PunctR=,", "PunctPost=a", "Punct=x",
          "PunctLX=1", "Translit=a_b", "x=PunctL", "Gloss=a=b", "PunctL"]


def _set_misc_reference(misc: str, items: str) -> str:
    """set_misc item by item (the rules its docstring states)."""
    if misc == "_":
        return items or "_"
    kept = [m for m in misc.split("|") if m != "_" and m.split("=")[0] not in MISC_KEYS]
    return "|".join(kept + [items] if items else kept) or "_"


@given(st.lists(st.sampled_from(_ITEMS), max_size=5), st.sampled_from(["", "PunctL=ε|PunctR=ε"]))
def test_set_misc_equals_the_item_by_item_rules(parts, items):
    misc = "|".join(parts)
    assert set_misc(misc, items) == _set_misc_reference(misc, items)


@pytest.mark.parametrize("misc, items, expected", [
    ("SpaceAfter=No", "PunctL=ε", "SpaceAfter=No|PunctL=ε"),
    ("SpaceAfter=No|PunctL=x", "PunctL=ε", "SpaceAfter=No|PunctL=ε"),
    ("_|SpaceAfter=No", "", "SpaceAfter=No"),
    ("PunctR=x", "", "_"),
])
def test_set_misc_examples(misc, items, expected):
    assert set_misc(misc, items) == expected


def test_set_comment_and_sent_id_read_only_the_comments_with_their_key():
    sent = Sentence(["# newdoc id = d1", "# a text = b", "#sent_id=  s-1 ",
                     "# text = sent_id = no"], [])
    assert sent.sent_id == "s-1"
    sent.set_comment("text", "new")
    sent.set_comment("underlying", "[∘ a]")
    assert sent.comments == ["# newdoc id = d1", "# a text = b", "#sent_id=  s-1 ",
                             "# text = new", "# underlying = [∘ a]"]
    assert Sentence(["# text = a sent_id b", "# newpar"], []).sent_id is None


_TOKEN = st.one_of(st.sampled_from(["ε", "<backoff>", "%CE%B5", "%3Cbackoff%3E", ",", "␣"]),
                   st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")),
                           min_size=1, max_size=4))
_PUNCTEME = st.one_of(st.none(), st.lists(_TOKEN, max_size=3).map(tuple))


@given(st.lists(st.tuples(_PUNCTEME, _PUNCTEME, st.integers(0, 1000).map(lambda k: k / 1000)),
                min_size=1, max_size=3))
def test_punct_post_gives_back_every_token(pairs):
    """PunctPost (and PunctL/PunctR, the same values) read back as written, whatever the tokens
    (the characters of a CoNLL-U field; nonempty, as a form is): a token spelled ``ε`` or
    ``<backoff>`` too, which read as the empty puncteme or the backoff before it was escaped;
    through a TokenList and an fstpunct sentence alike."""
    import conllu

    import fstpunct
    from fstpunct.apps.decode import posteriors_value, read_misc_value, read_posteriors_value
    from fstpunct.ud.treebank import read_conllu
    value = posteriors_value(pairs)
    assert read_posteriors_value(value) == pairs
    line = f"1\ta\ta\tNOUN\t_\t_\t0\troot\t_\tSpaceAfter=No|PunctPost={value}\n\n"
    assert fstpunct.posteriors(conllu.parse(line)[0]) == {1: pairs}
    assert fstpunct.posteriors(next(read_conllu(io.StringIO(line)))) == {1: pairs}
    # what decode wrote before a token was escaped whole reads as it did
    assert [read_misc_value(v) for v in ("ε", "<backoff>", "a␣ε", "%2C")] == [
        (), None, ("a", "ε"), (",",)]
