"""bench/arc_crossings.py's reading of an older layout.py (``--at``, ``--changed-against``,
and bench/random_trees.py's ``--at``), not the counts it prints."""
from __future__ import annotations

import dataclasses

import pytest
from one_letter import one_view
from script_module import BENCH, load_script

arc_crossings = load_script("arc_crossings", BENCH)


def test_layout_at_a_commit_is_a_module():
    assert callable(arc_crossings.layout_at("HEAD").layout)


@pytest.mark.parametrize("commit", ["no-such-commit", "HEAD~100000"])
def test_an_unknown_commit_is_one_line_exit_2(commit, capsys):
    """Not a traceback with git's message captured and lost (the review final18-B, 6)."""
    with pytest.raises(SystemExit) as exit_:
        arc_crossings.layout_at(commit)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"no fstpunct/show/layout.py at commit '{commit}': ")
    assert err.count("\n") == 1 and "fatal" in err


def test_an_arc_lacking_a_field_of_the_checked_out_one_has_its_labels_placed(monkeypatch):
    """Whether to wrap an older layout.py's ``layout`` in ``with_labels`` is decided by the
    checked-out ``Arc``'s fields, not by three named ones (the review of pictures7, 3), and the
    wrapped layout's arcs are the checked-out ``Arc`` with every field, the older arc's own as
    they were (the final review's lens B, 3): with a field HEAD's ``Arc`` lacks, HEAD's layout
    is wrapped and its arcs gain the field; without, it is its own."""
    rows = [("a", "NOUN", 2, "nmod:poss"), ("b", "NOUN", 0, "root"), ("c", "NOUN", 2, "dep")]
    view = one_view(rows)
    own = arc_crossings.layout_at("HEAD").layout
    assert own.__code__.co_filename == "HEAD:fstpunct/show/layout.py"
    older = own(view).arcs
    newer = dataclasses.make_dataclass("Arc", [("later", float, 0.0)],
                                       bases=(arc_crossings.current.Arc,), frozen=True)
    monkeypatch.setattr(arc_crossings.current, "Arc", newer)
    arcs = arc_crossings.layout_at("HEAD").layout(view).arcs
    assert [type(a) for a in arcs] == [newer] * len(older)
    assert all(a.later == 0.0 for a in arcs)
    assert [dataclasses.astuple(a)[:-1] for a in arcs] == list(map(dataclasses.astuple, older))


def test_an_arc_lacking_a_field_without_default_or_fill_is_one_line_exit_2(monkeypatch, capsys):
    """with_labels skipped such a field, so that each layout failed later with a bare
    TypeError from ``Arc(...)`` (the last read 20-3, 5): now layout_at refuses the commit."""
    newer = dataclasses.make_dataclass(
        "Arc", [("later", float, dataclasses.field(kw_only=True))],
        bases=(arc_crossings.current.Arc,), frozen=True)
    monkeypatch.setattr(arc_crossings.current, "Arc", newer)
    with pytest.raises(SystemExit) as exit_:
        arc_crossings.layout_at("HEAD")
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err == ("layout.py at commit 'HEAD': its Arc lacks 'later': no default, no fill "
                   "in bench/arc_crossings.py's FILLS\n")
