// The fstpunct viewer: pages of sentence pictures, a searchable sentence list, and on hover or
// click the K most probable (l, r) pairs of a word or the best edit path of a slot. The data is
// the JSON in #fp-data (written by fstpunct/show/report.py); nothing is fetched.
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("fp-data").textContent);
  const S = D.sentences;
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"]/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const tok = (s) => `<bdi class="tok">${esc(s)}</bdi>`;
  const EPS = "ε";
  let page = 0;
  let pinned = false;

  function pageCount() { return Math.max(1, Math.ceil(S.length / D.pageSize)); }

  function renderPage(p, focus) {
    page = Math.max(0, Math.min(p, pageCount() - 1));
    const from = page * D.pageSize;
    const to = Math.min(S.length, from + D.pageSize);
    const parts = [];
    for (let i = from; i < to; i++) {
      const s = S[i];
      parts.push(`<section class="sent" id="s${i}" data-i="${i}"><h3><span class="num">` +
        `${i + 1}</span> <span class="sid">${esc(s.id)}</span> <span class="lp">log p(x | T) = ` +
        `${s.lp.toFixed(2)}</span></h3><p class="text" dir="${s.rtl ? "rtl" : "ltr"}">` +
        `${esc(s.t)}</p><div class="pic${s.rtl ? " rtl" : ""}" dir="ltr">${s.svg}</div></section>`);
    }
    $("sentences").innerHTML = parts.join("");
    const info = `page ${page + 1} of ${pageCount()} · sentences ${from + 1}–${to} of ${S.length}`;
    for (const el of document.querySelectorAll(".pageinfo")) el.textContent = info;
    document.body.dataset.rendered =
      String($("sentences").querySelectorAll("svg.fp-tree").length);
    // a right-to-left sentence wider than the page starts scrolled to its first words, on
    // the right (its picture box is left-to-right, so it opened on the sentence's end)
    const rtl = document.querySelectorAll(".pic.rtl");
    for (const el of rtl) el.scrollLeft = el.scrollWidth;
    document.body.dataset.rtlAtStart = String([...rtl].filter(
      (el) => el.scrollLeft + el.clientWidth >= el.scrollWidth - 1).length);
    if (focus !== undefined) {
      const el = $("s" + focus);
      if (el) { el.classList.add("focus"); el.scrollIntoView({ block: "start" }); }
    } else {
      $("main").scrollTop = 0;
    }
  }

  function search() {
    const q = $("search").value.trim().toLowerCase();
    const hits = [];
    let total = 0;
    for (let i = 0; i < S.length; i++) {
      if (!q || S[i].id.toLowerCase().includes(q) || S[i].t.toLowerCase().includes(q)) {
        total++;
        if (hits.length < 500) hits.push(i);
      }
    }
    $("list").innerHTML = hits.map((i) => `<li data-i="${i}" dir="auto"><b>` +
      `${esc(S[i].id || i + 1)}</b> ${esc(S[i].t)}</li>`).join("");
    $("hits").textContent = total > hits.length
      ? `${total} sentences match; the first ${hits.length} are listed`
      : `${total} sentence${total === 1 ? "" : "s"}`;
  }

  function pair(l, r) { return `${l.map(tok).join(" ") || EPS} ‖ ${r.map(tok).join(" ") || EPS}`; }

  function showWord(i, w) {
    const s = S[i];
    const word = s.w[w - 1];
    const rows = (s.k[w - 1] || []).map(([l, r, p]) => `<tr><td class="pair">` +
      `${l === null ? "backoff" : pair(l, r)}</td><td class="bar"><span style="width:` +
      `${(100 * p).toFixed(1)}%"></span></td><td class="p">${p.toFixed(3)}</td></tr>`);
    $("detail").innerHTML = `<h4>${tok(word[0])} <small>${esc(word[1])}, ${esc(word[2])}` +
      `</small></h4><p class="note">the ${rows.length} most probable underlying (l, r) pairs ` +
      `of its constituent, posteriors given the tree and the surface</p><table>` +
      `${rows.join("")}</table>`;
  }

  function showSlot(i, k) {
    const slot = S[i].s[k];
    const [x, marks, steps, prob, backoff, read] = slot;
    if (backoff) {
      $("detail").innerHTML = `<h4>slot ${k}</h4><p>surface ${x.map(tok).join(" ") || EPS}; ` +
        "a backoff puncteme is part of its underlying string: its tokens are unknown.</p>";
      return;
    }
    const u = marks.map(([t, fate]) => `<span class="${fate}">${tok(t)}</span>`).join(" ");
    const rows = steps.map(([a, b, edit, p]) => `<tr><td>${tok(a)} ${tok(b)}</td><td>${edit}` +
      `</td><td class="p">${p.toFixed(3)}</td></tr>`);
    $("detail").innerHTML = `<h4>slot ${k}</h4><p>underlying u = ${u || EPS}<br>surface x = ` +
      `${x.map(tok).join(" ") || EPS}</p><p class="note">the most probable edit path writing x ` +
      (read ? "(in the model's forms: x read as its width twin) " : "") +
      `from u (window, edit, probability); p = ${prob.toFixed(3)}</p>` +
      `<table>${rows.join("") || "<tr><td>no window: nothing to edit</td></tr>"}</table>`;
  }

  function highlight(section, i, w) {
    for (const el of section.querySelectorAll(".hl")) el.classList.remove("hl");
    if (!w) return;
    const [lo, hi] = [S[i].w[w - 1][3], S[i].w[w - 1][4]];
    for (const el of section.querySelectorAll("text.w")) {
      const v = Number(el.dataset.w);
      if (v > lo && v <= hi) el.classList.add("hl");
    }
    for (const el of section.querySelectorAll(`text.m[data-n="${w}"]`)) el.classList.add("hl");
  }

  function inspect(event, click) {
    const target = event.target.closest("text");
    const section = event.target.closest("section.sent");
    if (!target || !section) return;
    if (!click && pinned) return;
    const i = Number(section.dataset.i);
    if (target.dataset.w) {
      showWord(i, Number(target.dataset.w));
      highlight(section, i, Number(target.dataset.w));
    } else if (target.dataset.s) {
      showSlot(i, Number(target.dataset.s));
      highlight(section, i, Number(target.dataset.n || 0));
    } else {
      return;
    }
    if (click) pinned = true;
    $("detail").classList.toggle("pinned", pinned);
  }

  $("sentences").addEventListener("mouseover", (e) => inspect(e, false));
  $("sentences").addEventListener("click", (e) => inspect(e, true));
  $("detail").addEventListener("click", () => { pinned = false; $("detail").classList.remove("pinned"); });
  $("search").addEventListener("input", search);
  $("list").addEventListener("click", (e) => {
    const li = e.target.closest("li");
    if (!li) return;
    const i = Number(li.dataset.i);
    renderPage(Math.floor(i / D.pageSize), i);
  });
  for (const b of document.querySelectorAll(".prev")) b.addEventListener("click", () => renderPage(page - 1));
  for (const b of document.querySelectorAll(".next")) b.addEventListener("click", () => renderPage(page + 1));
  const tabs = document.querySelectorAll("nav.tabs button");
  function openTab(b) {
    for (const o of tabs) o.classList.toggle("on", o === b);
    for (const t of document.querySelectorAll(".tab")) t.hidden = t.id !== b.dataset.tab;
  }
  for (const b of tabs) b.addEventListener("click", () => openTab(b));
  search();
  renderPage(0);
  // #learned opens the second tab; #N shows sentence N (1-based), #N.W also inspects its word W
  const hash = location.hash.slice(1);
  const at = /^([0-9]+)(?:\.([0-9]+))?$/.exec(hash);
  if (hash === "learned") openTab(tabs[1]);
  if (at && Number(at[1]) >= 1 && Number(at[1]) <= S.length) {
    const i = Number(at[1]) - 1;
    renderPage(Math.floor(i / D.pageSize), i);
    const word = $("s" + i).querySelector(`text.w[data-w="${at[2] || 1}"]`);
    if (word) word.dispatchEvent(new MouseEvent("click", { bubbles: true }));
  }
})();
