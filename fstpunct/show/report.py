"""The HTML viewer (``fstpunct show``): one self-contained page for a whole CoNLL-U file.

Every sentence is drawn as :mod:`fstpunct.show.tree` draws it for ``draw tree`` (the same
:class:`~fstpunct.show.sentence.SentenceView` and layout); the page adds a searchable sentence
list, pages of a few hundred sentences, and on hover or click a word's K most probable (l, r)
pairs with their posteriors or a slot's most probable edit path. A second tab shows what the
channel learned: the grammar's rules beside the learned edit probabilities
(:mod:`fstpunct.show.learned`, the paper's Figure 3), the confident learned edits, and the
most probable pairs per relation over the file (Table 4). Script and style are inlined from
``viewer.js`` and ``viewer.css``; the page needs no network.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..apps.decode import chunk_inference
from ..apps.rules import PAPER_RELATIONS, compare_rules, relation_pairs, rule_bars
from ..files import output, to_json
from ..fst.grammar import Grammar
from ..model.punct import PunctModel
from ..ud.slots import SlotSentence
from ..ud.treebank import Sentence, universal
from .learned import EDIT_NAMES, rules_chart
from .sentence import SentenceView, shown, view_of
from .tree import FONTS, STYLE, svg

__all__ = ["learned_html", "report_html", "write_report"]


def _round(p: float) -> float:
    return float(f"{p:.4g}")


def _record(view: SentenceView) -> dict[str, Any]:
    """What the page's script needs of one sentence (compact JSON)."""
    def tokens(p: Sequence[str]) -> list[str]:
        return [shown(t) for t in p]

    spans = view.spans or ((0, 0),) * view.n
    return {
        "id": view.sent_id, "t": view.text, "rtl": int(view.rtl), "svg": svg(view),
        "lp": round(view.log_prob, 4),
        "w": [[w, u, d, i, k] for w, u, d, (i, k) in zip(view.words, view.upos, view.deprels,
                                                         spans)],
        "k": [[[None, None, _round(p)] if pair is None else
               [tokens(pair[0]), tokens(pair[1]), _round(p)] for pair, p in node]
              for node in view.ranked],
        "s": [[list(slot.surface), [[m.text, m.fate, m.node, m.side] for m in slot.underlying],
               [[s.a, s.b, s.edit, _round(s.p)] for s in slot.steps], _round(slot.prob),
               int(slot.backoff), int(slot.read)] for slot in view.slots],
    }


def learned_html(model: PunctModel, sentences: Sequence[SlotSentence], grammar: Grammar | None,
                 edit_counts: np.ndarray | None, relations: int = 12) -> str:
    """The second tab: rules against the grammar, confident learned edits, pairs per relation
    (over ``sentences``, the paper's relations and the ``relations`` most frequent ones)."""
    parts = ["<h2>What the channel learned</h2>"]
    if grammar is None:
        parts.append("<p>No grammar to compare with (give one with --grammar).</p>")
    else:
        bars, left = rule_bars(model.channel, edit_counts, grammar)
        counted = "seen at least 25 times in training" if edit_counts is not None else \
            "(the model has no expected edit counts)"
        parts.append(f"<p>The rules of <code>{escape(Path(grammar.path).name)}</code> whose "
                     f"window the model {counted}: {len(bars)} shown, {left} left out (rarer "
                     "windows, or marks the model lacks). For each window <i>a b</i>, the "
                     "probability of each edit: the grammar's initial one (thin grey bar) and "
                     "the learned one (the grammar's own edit in orange).</p>")
        parts.append(rules_chart(bars))
        if edit_counts is not None:
            result = compare_rules(model.channel, edit_counts, grammar)
            agree = sum(g.edit == g.grammar_edit for g in result.confident)
            parts.append(f"<h3>Confident learned edits</h3><p>{len(result.confident)} windows "
                         "seen at least 25 times have an edit with p &gt; 0.75; "
                         f"{agree} of them are the grammar's. Mean reciprocal rank of the "
                         f"grammar's rules: {result.mrr:.3f}.</p>")
            rows = "".join(
                f"<tr><td><b>{escape(g.a)} {escape(g.b)}</b></td><td class=num>{g.count:,.0f}"
                f"</td><td>{EDIT_NAMES[g.edit]} ({g.edit})</td><td class=num>{g.p:.3f}</td>"
                f"<td>{EDIT_NAMES[g.grammar_edit]} ({g.grammar_edit})</td></tr>"
                for g in result.confident)
            parts.append("<table><tr><th>window</th><th>count</th><th>learned</th><th>p</th>"
                         f"<th>grammar</th></tr>{rows}</table>")
    counts = Counter(universal(d) for s in sentences for d in s.deprels)
    chosen = [r for r in PAPER_RELATIONS if counts[r]] + \
        [r for r, _ in counts.most_common() if r not in PAPER_RELATIONS][:relations]
    if chosen:
        table = relation_pairs(model, model.prepare(list(sentences)), chosen)
        parts.append("<h3>Most probable (l, r) pairs per relation</h3><p>Mean p<sub>θ</sub>(l, r"
                     " | w) over the nodes of each relation in this file (the paper's Table 4: "
                     "its five relations first, then the most frequent ones).</p>")
        rows = []
        for rel, (n, pairs) in table.items():
            cells = "".join(f"<td><bdi>{escape(pair)}</bdi> <span class=num>{100 * p:.1f}%"
                            "</span></td>" for pair, p in pairs)
            rows.append(f"<tr><td><b>{escape(rel)}</b></td><td class=num>{n}</td>{cells}</tr>")
        parts.append("<table><tr><th>relation</th><th>nodes</th><th colspan=5>l | r, mean "
                     f"probability</th></tr>{''.join(rows)}</table>")
    return "".join(parts)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def report_html(records: list[dict[str, Any]], learned: str, title: str, page_size: int,
                k: int) -> str:
    """The page: ``records`` (from the sentence views) and the ``learned`` tab's HTML."""
    data = to_json({"pageSize": page_size, "k": k, "sentences": records},
                   ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    # the first script records any error of the page's script for tests and users
    catch = ("window.addEventListener('error',function(e){var d=document.documentElement;"
             "d.dataset.errors=(d.dataset.errors?d.dataset.errors+' | ':'')+e.message;});")
    legend = "".join(f'<span class="{f}">{f}</span>' for f in ("kept", "absorbed", "transposed"))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script>{catch}</script>
<style>body {{ font-family: {FONTS}; }}
{_asset("viewer.css")}{STYLE}</style></head>
<body>
<header><h1>{escape(title)}</h1><nav class="tabs"><button class="on" data-tab="tab-sentences">
Sentences</button><button data-tab="tab-learned">What the channel learned</button></nav>
<span class="meta legend">underlying marks: {legend}· surface below the words · hover or
click a word or a mark</span></header>
<div class="tab" id="tab-sentences"><aside><input id="search" type="search"
placeholder="search sent_id or text" aria-label="search sentences"><div id="hits"></div>
<ul id="list"></ul></aside>
<div id="main"><div class="pager"><button class="prev">◀ previous</button><span
class="pageinfo"></span><button class="next">next ▶</button></div><div id="sentences"></div>
<div class="pager"><button class="prev">◀ previous</button><span class="pageinfo"></span>
<button class="next">next ▶</button></div></div>
<div id="detail"><p class="note">Hover over a word for its most probable (l, r) pairs, over a
mark for its slot's edit path; click to keep the panel, click the panel to let go.</p></div>
</div>
<div class="tab" id="tab-learned" hidden>{learned}</div>
<script type="application/json" id="fp-data">{data}</script>
<script>{_asset("viewer.js")}</script>
</body></html>
"""


def write_report(model: PunctModel, sentences: Iterable[Sentence], path: str | Path | None,
                 title: str, grammar: Grammar | None = None,
                 edit_counts: np.ndarray | None = None, k: int = 5, page_size: int = 200) -> int:
    """Write the viewer page of ``sentences`` to ``path`` (stdout for None or ``-``), whole or
    not at all; returns how many sentences it shows."""
    records: list[dict[str, Any]] = []
    prepared: list[SlotSentence] = []
    for batch, slots, inference in chunk_inference(model, sentences, 200):
        for s, (sent, one, pairs) in enumerate(zip(batch, slots, inference.viterbi_all())):
            records.append(_record(view_of(model, sent, one, inference, s, pairs, k)))
        prepared.extend(slots)
    page = report_html(records, learned_html(model, prepared, grammar, edit_counts), title,
                       page_size, k)
    with output(path) as f:
        f.write(page)
    return len(records)
