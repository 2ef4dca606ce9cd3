"""bench/text_bench.py's label of what the whole call's time includes."""
from __future__ import annotations

from script_module import BENCH, load_script

text_bench = load_script("text_bench", BENCH)


def test_a_given_parser_alone_is_read_at_each_call() -> None:
    """The label looked at the tagger only: with --parser alone it said the parts were already
    read, although restore reads a given parser folder at each call."""
    own = "the model's tagger and parser already read"
    assert text_bench.reading({"tagger": None, "parser": None}) == own
    assert text_bench.reading({"tagger": None, "parser": "p"}) != own


def test_only_the_given_parts_are_said_to_be_read_at_each_call() -> None:
    """With --tagger alone the label said the parser was read at each call too, although the
    parser is the model's own, read once."""
    assert text_bench.reading({"tagger": "t", "parser": None}) == "loading the tagger included"
    assert text_bench.reading({"tagger": None, "parser": "p"}) == "loading the parser included"
    assert text_bench.reading({"tagger": "t", "parser": "p"}) == \
        "loading the tagger and parser included"
