"""Drawing a slot lattice: its most probable paths are real paths of the lattice whose
weights add up to p(x | u) (brute force), posteriors are estimated from samples of T′, every
slot of the sample draws in seconds, and a full drawing above the size limit is refused."""
import re
import shutil
import time
from pathlib import Path

import graphviz
import pytest
from drawn import self_loops, svg_texts
from toy_release import conllu

from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.model.punct import Inference
from fstpunct.model.store import load_model
from fstpunct.show.dot import CAPTION_COLUMNS, SANS, digraph
from fstpunct.show.lattice import (
    MAX_STATES,
    LatticePath,
    _edit_paths,
    _paths_table,
    lattice_graph,
    paths_graph,
    sample_slots,
    slot_paths,
)
from fstpunct.ud.slots import to_slots
from fstpunct.ud.treebank import read_file

SAMPLE = Path(__file__).parent.parent / "data" / "sample.conllu"


@pytest.fixture(scope="module")
def inference():
    model = load_model("en")
    sents = [to_slots(s) for s in read_file(SAMPLE)]
    return Inference(model, model.prepare(sents))


def test_paths_add_up_to_the_channel_probability(inference):
    channel = inference.model.channel
    x = inference.batch.surfaces[0][8]  # '. ”' after "Excalibur"
    topo = inference.builder.topology(x)
    index = {t: i for i, t in enumerate(channel.symbols)}
    for u in [("”", ".", "."), ("”", ",", "."), (".", "”"), ("”", ".")]:
        ids = [index[t] for t in u][::-1]  # en reads right to left
        found = _edit_paths(topo, ids, inference.weights)
        assert sum(w for _, w in found) == pytest.approx(channel.prob(u, x), rel=1e-9)
        assert len({arcs for arcs, _ in found}) == len(found)


def _empty(inference):
    """The lattice of an empty slot (for paths boxes of hand-made paths, which pass no arc)."""
    return inference.builder.topology(())


def test_two_paths_of_one_string_are_told_apart(inference):
    """u = ', , (' has two edit paths through a ',' surface (en reads right to left: '(' is
    pending, then the loop on 'pending (' absorbs a comma or the loop on 'pending ,' does);
    the box showed them as two equal rows (en:dev:40 slot 5, paths 5 and 6). Each row now
    lists the states its path passes, in order, as the drawing numbers them: each arc's
    source, the last arc's end implied ('end'). u = ', ( ,' passes 'pending (' after
    'pending ,' (states 0 12 7 12), so a sorted list fails too, as a reversed one or one of
    the arcs' ends do."""
    index = {t: i for i, t in enumerate(inference.model.channel.symbols)}
    topo = inference.builder.topology((",",))
    paths = []
    for u in [(",", ",", "("), (",", "(", ",")]:
        found = _edit_paths(topo, [index[t] for t in reversed(u)], inference.weights)
        paths += [LatticePath(u, arcs, w, 0.5) for arcs, w in found]
    for p in paths:  # a path: each arc leaves where the one before ends, the last at end
        assert all(topo.dst[a] == topo.src[b] for a, b in zip(p.arcs, p.arcs[1:]))
        assert topo.src[p.arcs[0]] == topo.start and topo.dst[p.arcs[-1]] < 0
    states = re.findall(r'<TD ALIGN="LEFT">states ([^<]*)</TD>', _paths_table(paths, topo))
    # 0: nothing pending, 7: pending '(', 12: pending ','
    assert states == ["0 7 12 12", "0 7 7 12", "0 12 7 12", "0 12 12 12"]


def test_most_probable_paths(inference):
    sampled = sample_slots(inference, 0, 400)
    assert all(s.samples == 400 and sum(s.strings.values()) + s.backoff == 400 for s in sampled)
    assert list(sampled[1].strings) == [()]  # an empty slot: u = ε in every sample
    paths = slot_paths(inference, 0, 8, 5, sampled[8])
    posteriors = [p.posterior for p in paths.paths]
    assert len(posteriors) == 5 and posteriors == sorted(posteriors, reverse=True)
    assert 0 < paths.covered <= 1 + 1e-9 and paths.total > 5
    assert all(p.u and p.u[0] == "”" for p in paths.paths)  # the quote closes the object
    source = paths_graph(inference.builder, inference.weights, paths, "slot 8").source
    assert "the 5 most probable of the" in source and "SWAP ⟨”⟩ ⟨.⟩" in source
    assert source.count("->") < 30
    loops = self_loops(source)  # '. .': the period absorbs the one before it, a loop
    assert loops and all("label" not in rest for _, rest in loops)
    assert source.count("↻ ⟨.⟩  (LEFT ⟨.⟩ ⟨.⟩)") == 1  # written in the loop's state


def test_full_lattice_refused_above_the_limit(inference):
    big = inference.batch.surfaces[0][8]
    assert inference.builder.topology(big).n_states > MAX_STATES
    with pytest.raises(InputError, match="draw its most probable paths"):
        lattice_graph(inference.builder, inference.weights, big, "slot 8")
    small = lattice_graph(inference.builder, inference.weights, (), "empty").source
    assert "end" in small


def test_every_sample_slot_draws_in_seconds(inference):
    """Each slot's drawing (its share of one sampling run per sentence, its paths, the graph and,
    with dot, the rendering) takes well under 5 s."""
    render = shutil.which("dot") is not None
    for s, sent in enumerate(inference.batch.sentences):
        start = time.perf_counter()
        sampled = sample_slots(inference, s)
        share = (time.perf_counter() - start) / (sent.n + 1)
        for i in range(sent.n + 1):
            start = time.perf_counter()
            graph = paths_graph(inference.builder, inference.weights,
                                slot_paths(inference, s, i, 10, sampled[i]), f"slot {i}")
            if render:
                assert graph.pipe(format="svg").startswith(b"<?xml")
            assert share + time.perf_counter() - start < 5.0, (s, i)


def test_a_slot_whose_every_sample_backs_off_is_drawn(tmp_path):
    """zh:dev:21's '為 $ 16,250': every sample of T′ holds a backoff puncteme at the slot of the
    '$' the zh model does not know. The paths box was an empty table, a syntax error to dot
    (a traceback), and the caption printed the surface as the model reads it ('<unk>')."""
    rows = [("數", "PART", 4, "nsubj"), ("為", "VERB", 4, "cop"), ("$", "SYM", 4, "punct"),
            ("16,250", "NUM", 0, "root"), (".", "PUNCT", 4, "punct")]
    path = tmp_path / "zh.conllu"
    path.write_text(conllu(rows), encoding="utf-8")
    out = tmp_path / ("lat.svg" if shutil.which("dot") else "lat.dot")
    assert main(["draw", "lattice", "--model", "zh", "--sentence", f"{path}:1", "--slot", "2",
                 "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "surface ⟨$⟩" in text
    assert "no path to draw" in text and "&lt;unk" not in text and "<unk" not in text


def test_the_caption_prints_the_surface_as_the_tree_does(tmp_path, monkeypatch):
    """The abbreviation's period of 'Mr.' is the model's <abbv>; the caption printed that."""
    monkeypatch.chdir(tmp_path)  # a short name: the caption wraps at 100 columns
    path = Path("mr.conllu")
    path.write_text("1\tMr.\t_\tPROPN\t_\t_\t2\tnsubj\t_\t_\n2\tleft\t_\tVERB\t_\t_\t0\troot"
                    "\t_\t_\n3\t.\t_\tPUNCT\t_\t_\t2\tpunct\t_\t_\n\n", encoding="utf-8")
    out = tmp_path / "lat.dot"
    assert main(["draw", "lattice", "--lang", "en", "--sentence", f"{path}:1", "--slot", "1",
                 "-o", str(out)]) == 0
    assert "surface ⟨.⟩, between 'Mr' and 'left'" in out.read_text(encoding="utf-8")


def test_arabic_marks_in_the_caption_and_the_paths_box_read_left_to_right(tmp_path,
                                                                          monkeypatch,
                                                                          inference):
    """A slot's surface in the caption and a path's u in the box holding two right-to-left
    marks were laid out right to left ('u = ؛ ؟ .' as 'u = ؟ ؛ .'), as arc labels were before
    d4c07aa; a left-to-right mark before each part keeps them in order (:func:`ltr`)."""
    box = _paths_table([LatticePath(("؛", "؟", "."), (), 1.0, 1.0)], _empty(inference))
    assert "u = \u200e⟨؛⟩ \u200e⟨؟⟩ \u200e⟨.⟩<" in box
    monkeypatch.chdir(tmp_path)  # a short name: the caption wraps at 100 columns
    rows = [("قال", "VERB", 0, "root"), ("؟", "PUNCT", 1, "punct"), ("،", "PUNCT", 1, "punct"),
            ("نعم", "INTJ", 1, "ccomp")]
    Path("q.conllu").write_text(conllu(rows), encoding="utf-8")
    assert main(["draw", "lattice", "--model", "ar", "--sentence", "q.conllu:1", "--slot", "1",
                 "-o", "lat.dot"]) == 0
    assert "surface \u200e⟨؟⟩ \u200e⟨،⟩, between" in Path("lat.dot").read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_backslashes_in_the_paths_box_are_printed(inference):
    """Graphviz expands escapes in HTML-like labels: a u holding '\\N' printed the node's name
    ('paths') there, and '\\\\' one backslash (here in '\\\\N': a mark of several
    characters without a letter has them a thin space apart, :func:`~fstpunct.show.dot.mark`)."""
    graph = graphviz.Digraph()
    graph.node("paths", _paths_table([LatticePath(("\\N", "\\\\N"), (), 1.0, 1.0)],
                                     _empty(inference)), shape="plaintext")
    assert "u = ⟨\\N⟩ ⟨\\\\N⟩" in svg_texts(graph)


def test_draw_lattice_command(tmp_path, capsys):
    out = tmp_path / "lat.dot"
    assert main(["draw", "lattice", "--sentence", f"{SAMPLE}:2", "--slot", "4", "--paths", "3",
                 "-o", str(out)]) == 0
    assert "the 3 most probable" in out.read_text(encoding="utf-8")
    assert main(["draw", "lattice", "--sentence", f"{SAMPLE}:2", "--slot", "4", "--full"]) == 2
    assert "--paths K" in capsys.readouterr().err
    assert main(["draw", "lattice", "--sentence", f"{SAMPLE}:2", "--slot", "9"]) == 2


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_paths_box_aligns_in_any_font(inference):
    """The paths box is a table whose columns align whatever width the font gives a mark: laid
    out by dot (-Txdot, its own font metrics), every row's number and p end at one x and every
    u starts at one x, with twelve paths (two-digit numbers) and wide marks. Its text rows,
    padded by an estimate of each mark's columns, were ragged where the font drew a mark wider
    than estimated ("∘ “ —" of en:dev:1907 slot 0) and "10." sat a column right of "9."."""
    us = [("《",), ("《", "《"), ("∘", "“", "—"), (), ("、", ","), ("…",)] * 2
    paths = [LatticePath(u, (), 1.0, 0.5 / k) for k, u in enumerate(us, 1)]
    graph = graphviz.Digraph()
    topo = _empty(inference)
    graph.node("paths", _paths_table(paths, topo), shape="plaintext", fontname=SANS)
    xdot = graph.pipe(format="xdot", encoding="utf-8").replace("\\\n", "")
    texts = re.findall(r"T (\S+) (\S+) (-?1|0) (\S+) \d+ -", xdot)
    assert len(texts) == 4 * len(paths) and {j for _, _, j, _ in texts} == {"-1"}  # left x
    rows = [texts[k:k + 4] for k in range(0, len(texts), 4)]
    assert len({float(y) for (_, y, _, _), *_ in rows}) == len(paths)
    for column, edge in ((0, "right"), (1, "left"), (2, "left"), (3, "right")):
        xs = {round(float(r[column][0]) + (float(r[column][3]) if edge == "right" else 0), 1)
              for r in rows}
        assert len(xs) == 1, (column, xs)
    assert "u = ε" in _paths_table(paths, topo) and "&lt;" in _paths_table(
        [LatticePath(("<",), (), 1.0, 1.0)], topo)


def test_captions_wrap():
    """A graph's caption lines wrap at CAPTION_COLUMNS characters (the paths note, one line,
    made a 600 px graph 1,641 px wide and its text small once fitted to a screen)."""
    note = " ".join(f"word{k}" for k in range(60))
    lines = digraph("g", f"slot 3 of s\n{note}").graph_attr["label"].split("\n")
    assert lines[0] == "slot 3 of s" and all(len(line) <= CAPTION_COLUMNS for line in lines)
    assert " ".join(lines[1:]) == note


def test_a_path_below_half_a_thousandth_prints_as_less_than(inference):
    """The box printed a posterior below 0.0005 as 'p ≈ 0.000' (en:dev:40 slot 5, path 6)."""
    box = _paths_table([LatticePath((",",), (), 1.0, 0.0004),
                        LatticePath(("(",), (), 1.0, 0.0005)], _empty(inference))
    assert "p &lt; 0.001" in box and "p ≈ 0.001" in box and "0.000<" not in box
