"""bench/text_bench.py's label of what the whole call's time includes."""
from __future__ import annotations

from script_module import BENCH, load_script

text_bench = load_script("text_bench", BENCH)


def test_a_given_parser_alone_is_read_at_each_call() -> None:
    """The label looked at the tagger only: with --parser alone it said the parts were already
    read, although restore reads a given parser folder at each call."""
    own = "the model's tagger and parser already read"
    assert text_bench.reading({"tagger": None, "parser": None}) == own
    for given in ({"tagger": "t", "parser": None}, {"tagger": None, "parser": "p"}):
        assert text_bench.reading(given) == "loading the tagger and parser included"
