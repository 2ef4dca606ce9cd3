"""scripts/text_restoration.py: restoring over a tree ensemble (--parsers)."""
from __future__ import annotations

from pathlib import Path

import pytest
from script_module import load_script

from fstpunct.apps.restoration.strip import strip
from fstpunct.parser import train as train_parser
from fstpunct.ud.treebank import read_file

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


@pytest.fixture(scope="module")
def script():
    return load_script("text_restoration")


class Recording:
    """A restorer that inserts nothing and records the trees it is given."""

    def __init__(self) -> None:
        self.seen: list[tuple[object, tuple]] = []

    def restore(self, sent, alternatives=()):
        self.seen.append((sent, tuple(alternatives)))
        return [()] * (len(sent.words) + 1)


def test_every_parser_gives_the_method_a_tree(script, tmp_path):
    gold = list(read_file(SAMPLE))
    quiet = lambda _: None  # noqa: E731
    for name, epochs in (("a-en", 1), ("b-en", 2)):
        train_parser(gold, gold, "removed", 1, tmp_path / name, epochs=epochs, progress=False,
                     log=quiet)
    parsers = script.ensemble("en", [str(tmp_path / "a-{lang}"), str(tmp_path / "b-{lang}")])
    trees = [strip(s) for s in gold]
    method = Recording()
    pred = script.predicted(method, gold, range(len(gold)), trees, parsers)
    assert len(method.seen) == len(gold) and len(pred) == len(gold)
    for (first, alternatives), g in zip(method.seen, gold):
        assert len(alternatives) == 1  # the second parser's tree
        words = [w.form for w in strip(g).words]
        assert [w.form for w in first.words] == [w.form for w in alternatives[0].words] == words
    alone = Recording()
    script.predicted(alone, gold, range(len(gold)), trees)
    assert all(alt == () for _, alt in alone.seen)  # no parsers: the analysis's tree only
