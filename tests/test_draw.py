"""Drawing the channel: state names and arc labels in the DOT source, hidden arcs, rendering
with and without the ``dot`` program, and the ``draw channel`` command."""
import json
import shutil
from pathlib import Path

import pytest
from drawn import self_loops, svg_texts

from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.fst.channel import NoDirection, sidecar_direction
from fstpunct.fst.grammar import load_grammar
from fstpunct.show import dot
from fstpunct.show.channel import channel_graph
from fstpunct.show.dot import write_graph

EN = Path(__file__).parent.parent / "grammars" / "en.rules"


@pytest.fixture(scope="module")
def channel():
    return load_grammar(EN).channel()


def test_names_and_labels(channel):
    source = channel_graph(channel, [",", ".", "”"]).source
    for text in ("<TD>pending ⟨,⟩</TD>", "<TD>pending ⟨”⟩</TD>", '"nothing pending"', "end",
                 "⟨,⟩ ⟨.⟩ → ε / 0.9",      # , . → .  (rtl: the comma is read after the period)
                 "⟨”⟩ ⟨.⟩ → ⟨”⟩ / 0.7",    # ” . → . ”  (rtl writes x reversed: ” first)
                 "$ → ⟨,⟩"):
        assert text in source
    assert "pending ⟨(⟩" not in source and "rtl channel" in source
    ltr = load_grammar(EN).channel(direction="ltr")
    assert "⟨”⟩ ⟨.⟩ → ⟨.⟩ / 0.7" in channel_graph(ltr, [".", "”"]).source


def test_marks_are_set_apart():
    """In the monospace labels the danda read like 'l', '—' like '-' ('–' and '—' were
    drawn alike) and ':' as a symbol like the label's own separator ('; : : ε / 0.9'). Each
    mark is now between angle brackets, an arc's output after '→', and the labels are set in
    sans-serif (the dashes differ in length)."""
    hi = load_grammar(EN.with_name("hi.rules")).channel()
    source = channel_graph(hi, ["।", ","]).source
    assert "<TD>pending ⟨।⟩</TD>" in source and "⟨।⟩ ⟨,⟩ → ε / 0.9" in source
    en = load_grammar(EN).channel()
    source = channel_graph(en, [";", ":", "—", "-"]).source
    assert "⟨:⟩ ⟨:⟩ → ⟨:⟩ / 0.1" in source and "⟨—⟩ ⟨-⟩ → ε" in source
    assert " : " not in source.replace("⟨:⟩", "")  # no ':' left but the marks
    assert "monospace" not in source and 'fontname="sans-serif"' in source


def test_the_characters_of_a_mark_of_several_stand_apart(channel):
    """In sans-serif two hyphens read like the en dash ('pending ⟨--⟩' beside 'pending ⟨–⟩',
    review pictures3 finding 5): the characters of a mark of several, none a letter, stand a
    thin space apart; a mark of one character and '<abbv>' print as they did."""
    source = channel_graph(channel, ["–", "--"]).source
    assert "pending ⟨-\u2009-⟩" in source and "pending ⟨–⟩" in source and "--" not in source
    assert dot.mark("...") == "⟨.\u2009.\u2009.⟩" and dot.mark("''") == "⟨'\u2009'⟩"
    assert dot.mark("<abbv>") == "⟨<abbv>⟩" and dot.mark("—") == "⟨—⟩"


def test_self_loops_are_labelled_in_their_states(channel):
    """A self-loop's label is written in its state, under the name, and the loop drawn
    unlabelled: dot (left to right) set loop labels where the loop and other edges ran through
    them. 'pending ,' loops on ', ,' (the comma absorbs the comma before it)."""
    source = channel_graph(channel, [",", "."]).source
    comma, period = (str(2 + channel.index(m)) for m in ",.")
    assert self_loops(source) == [(comma, ""), (period, "")]
    node = next(line.strip() for line in source.splitlines()
                if line.strip().startswith(f"{comma} [label=<"))
    assert "<TD>pending ⟨,⟩</TD>" in node and "↻ ⟨,⟩ ⟨,⟩ → ε / 0.9" in node and "rounded" in node


def test_labels_with_arabic_marks_read_left_to_right():
    """A label whose first letter-like character was Arabic ('؟ ، : ، / 0.9') was laid out
    right to left; a left-to-right mark before each part keeps it in order. Lines without a
    right-to-left character are left as they are. The caption's symbol list too ('over ؟ ،'
    read '، ؟')."""
    assert dot.ltr(", . : ε / 0.9") == ", . : ε / 0.9"
    assert dot.ltr("؟ « : ε") == "\u200e؟ \u200e« \u200e: \u200eε"
    ar = load_grammar(EN.with_name("ar.rules")).channel()
    source = channel_graph(ar, ["؟", "،"]).source
    labels = source.replace("pending ⟨؟⟩", "")  # a state's name is one symbol
    marks = [k for k, c in enumerate(labels) if c == "؟"]
    assert len(marks) > 10 and all(labels[k - 2:k] == "\u200e⟨" for k in marks)
    assert "over \u200e⟨؟⟩ \u200e⟨،⟩ (reads" in source


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_backslashes_in_state_boxes_are_printed():
    """Graphviz expands escapes in HTML-like labels as in others: a state's name or loop
    holding '\\N' printed the node's name there, and '\\\\' one backslash."""
    graph = dot.digraph("g", "")
    dot.state(graph, "7", "pending \\N", ["\\N \\\\ : ε"])
    assert {"pending \\N", "↻ \\N \\\\ : ε"} <= svg_texts(graph)


def test_min_prob_hides_arcs(channel):
    source = channel_graph(channel, [",", "."], min_prob=0.5).source
    assert "⟨,⟩ ⟨.⟩ → ε / 0.9" in source and "/ 0.033" not in source
    assert "arcs with p < 0.5 hidden" in source


def test_long_caption_is_wrapped(channel):
    """The caption over every symbol is wrapped as other graphs' are (it made one long line)."""
    source = channel_graph(channel, list(channel.symbols)).source
    caption = source[source.rindex('label="') + len('label="'):].split('"')[0].split("\n")
    assert len(caption) > 1 and max(map(len, caption)) <= dot.CAPTION_COLUMNS


def test_unknown_symbol(channel):
    with pytest.raises(InputError, match="not in the channel"):
        channel_graph(channel, [",", "¶"])


def test_write_dot_and_fallback(channel, tmp_path, monkeypatch):
    graph = channel_graph(channel, [","])
    written, rendered = write_graph(graph, tmp_path / "c.dot")
    assert (written, rendered) == (tmp_path / "c.dot", False)
    assert "pending ⟨,⟩" in written.read_text(encoding="utf-8")
    with pytest.raises(InputError, match="cannot draw"):
        write_graph(graph, tmp_path / "c.jpeg")
    monkeypatch.setattr(dot.shutil, "which", lambda name: None)
    written, rendered = write_graph(graph, tmp_path / "d.svg")
    assert (written, rendered) == (tmp_path / "d.dot", False) and written.exists()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_render_svg(channel, tmp_path):
    written, rendered = write_graph(channel_graph(channel, [",", "."]), tmp_path / "c.svg")
    assert rendered and "<svg" in written.read_text(encoding="utf-8")


def test_draw_command(tmp_path, capsys):
    fst = tmp_path / "en.fst"
    assert main(["compile", str(EN), "-o", str(fst)]) == 0
    out = tmp_path / "c.dot"
    assert main(["draw", "channel", str(fst), "--symbols", ", . ”", "-o", str(out)]) == 0
    assert "pending ⟨”⟩" in out.read_text(encoding="utf-8")
    assert main(["draw", "channel", str(fst), "--symbols", ","]) == 0
    assert capsys.readouterr().out.startswith("digraph")
    assert main(["draw", "channel", str(fst), "--symbols", ", x", "-o", str(out)]) == 2
    assert "x not in the channel" in capsys.readouterr().err


def test_a_missing_or_foreign_channel_file_is_one_line(tmp_path, capfd):
    """OpenFst used to print its own 'ERROR: ReadFstClass…' line before ours (capfd: C++
    writes to file descriptor 2)."""
    (tmp_path / "text.fst").write_text("not an fst\n")
    for name, what in (("missing.fst", "cannot read an OpenFst channel"),
                       ("text.fst", "not an OpenFst file")):
        assert main(["draw", "channel", str(tmp_path / name), "--symbols", ", .",
                     "-o", str(tmp_path / "c.svg")]) == 2
        err = capfd.readouterr().err
        assert err.count("\n") == 1 and f"{name}: {what}" in err


def test_a_bare_channel_without_its_direction_says_the_option(tmp_path, capsys):
    """A .fst without its JSON: the one line says --direction gives the direction (the advice
    was dropped); with --direction it draws."""
    fst = tmp_path / "lone.fst"
    assert main(["compile", str(EN), "-o", str(fst)]) == 0
    direction = json.loads((tmp_path / "lone.json").read_text(encoding="utf-8"))["direction"]
    (tmp_path / "lone.json").unlink()
    capsys.readouterr()
    assert main(["draw", "channel", str(fst), "--symbols", ", ."]) == 2
    err = capsys.readouterr().err
    assert err == (f"fstpunct draw channel: error: {tmp_path / 'lone.json'}: cannot read the "
                   "channel's direction (no such file or directory); or pass --direction "
                   "ltr|rtl\n"), err
    assert main(["draw", "channel", str(fst), "--symbols", ", .", "--direction", direction]) == 0


def test_a_model_without_its_direction_is_one_line_without_the_option(tmp_path, capsys):
    """A model folder's channel without its JSON: the same one line, exit 2, and no advice to
    pass --direction (a model's direction is its own); the library says it by type
    (NoDirection), for each way the JSON fails."""
    from fstpunct.model.store import model_path
    shutil.copytree(model_path("hi"), tmp_path / "hi")
    side = tmp_path / "hi" / "channel.json"
    side.unlink()
    assert main(["draw", "channel", str(tmp_path / "hi"), "--symbols", ", ."]) == 2
    assert capsys.readouterr().err == (f"fstpunct draw channel: error: {side}: cannot read the "
                                       "channel's direction (no such file or directory)\n")
    for text, why in ((None, "no such file"), ("{", "cannot read"),
                      ('{"direction": "up"}', "'direction' must be ltr or rtl")):
        if text is not None:
            side.write_text(text, encoding="utf-8")
        with pytest.raises(NoDirection, match=why):
            sidecar_direction(tmp_path / "hi" / "channel.fst")


@pytest.mark.parametrize("value", ["2", "-0.5", "x"])
def test_min_prob_is_a_probability(tmp_path, capsys, value):
    """--min-prob 2 used to draw a channel without arcs, exit 0."""
    with pytest.raises(SystemExit) as stop:
        main(["draw", "channel", str(EN), "--symbols", ", .", "--min-prob", value,
              "-o", str(tmp_path / "c.svg")])
    assert stop.value.code == 2
    assert "argument --min-prob: must be a probability from 0 to 1" in capsys.readouterr().err


def test_draw_channel_takes_a_model(tmp_path, capsys):
    """``draw channel en`` (a bundled name) and a model folder draw the model's channel.fst,
    as every other command takes a model (it was 'en: cannot read an OpenFst channel: No such
    file or directory', and for a folder 'Is a directory')."""
    from fstpunct.model.store import model_path
    shutil.copytree(model_path("hi"), tmp_path / "hi")
    for model, channel in (("en", model_path("en") / "channel.fst"),
                           (str(tmp_path / "hi"), tmp_path / "hi" / "channel.fst")):
        drawn = []
        for given in (model, str(channel)):
            assert main(["draw", "channel", given, "--symbols", ", ."]) == 0
            drawn.append(capsys.readouterr().out)
        assert drawn[0] == drawn[1] and drawn[0].startswith("digraph")
