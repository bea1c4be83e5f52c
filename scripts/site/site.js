// memhier results site (scripts/site.py, docs/site.md): draws every plot in the browser with uPlot
// from the archives' data files (gzip-compressed JSON in a JS file: pages work from file://).
// Text reaches the page through textContent only (site.py escapes what it writes, once); the values
// and verdict tones of the compare table come formatted from site.py.
(function () {
  "use strict";
  const SITE = window.MEMHIER_SITE || { archives: [], pairs: [], families: {} };
  const FAMILIES = SITE.families || {};
  const ROOT = document.body.dataset.root || "";
  const PX = window.devicePixelRatio || 1;
  // One meaning per line style; the key above the curves is drawn from this table.
  const STYLES = {
    measured: { dash: [], text: "measured" },
    base: { dash: [], text: "measured, base archive" },
    new: { dash: [6, 4], text: "measured, new archive" },
    inferred: { dash: [1.5, 3], text: "inferred by the analyzer (topology.json): capacity, onset of misses, TLB reach" },
    peak: { dash: [10, 3, 2, 3], text: "theoretical peak (bench.json's context)" },
  };
  const MARK_COLOR = { capacity: "#333", onset: "#c05600", peak: "#6a3d9a", base: "#1f77b4", new: "#d62728" };
  window.__memhierPlots = [];
  window.__memhierReady = false;

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const s = el("script", { src: src });
      s.onload = resolve;
      s.onerror = () => reject(new Error("cannot load " + src));
      document.head.appendChild(s);
    });
  }

  async function decode(b64) {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  async function archiveData(id) {
    if (!(window.MEMHIER_DATA && window.MEMHIER_DATA[id])) await loadScript(ROOT + "data/" + id + ".js");
    return decode(window.MEMHIER_DATA[id]);
  }

  async function compareData(a, b) {
    const key = a + "--" + b;
    if (!(window.MEMHIER_COMPARE && window.MEMHIER_COMPARE[key])) await loadScript(ROOT + "data/compare/" + key + ".js");
    return decode(window.MEMHIER_COMPARE[key]);
  }

  // ---------------------------------------------------------------------------------------------
  // Axis formatting (the figures of the pages come formatted from site.py)

  function fmtBytes(v) {
    if (v == null) return "—";
    const units = [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]];
    for (const [u, d] of units) if (Math.abs(v) >= d) return +(v / d).toPrecision(3) + " " + u;
    return v + " B";
  }

  function fmtNum(v) {
    if (typeof v !== "number") return String(v);
    if (Number.isInteger(v)) return String(v);
    return String(+v.toPrecision(4));
  }

  function color(i, n) {
    const base = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];
    if (n <= base.length) return base[i % base.length];
    return "hsl(" + Math.round((i * 137.5) % 360) + ", 65%, " + (38 + (i % 3) * 9) + "%)";
  }

  function swatch(stroke, dash) {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", "30");
    svg.setAttribute("height", "10");
    svg.setAttribute("aria-hidden", "true");
    const line = document.createElementNS(ns, "line");
    for (const [k, v] of Object.entries({ x1: 1, y1: 5, x2: 29, y2: 5, stroke: stroke, "stroke-width": 2 })) line.setAttribute(k, v);
    if (dash && dash.length) line.setAttribute("stroke-dasharray", dash.join(" "));
    svg.appendChild(line);
    return svg;
  }

  function lineKey(kinds) {
    const key = document.querySelector(".line-key");
    if (!key) return;
    key.textContent = "";
    key.appendChild(el("span", { class: "key-title" }, "Lines:"));
    for (const k of kinds) {
      const s = el("span", { class: "key-item", "data-style": k });
      s.appendChild(swatch("#333", STYLES[k].dash));
      s.appendChild(document.createTextNode(STYLES[k].text));
      key.appendChild(s);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Plots

  function countPoints(data) {
    let n = 0;
    for (let s = 1; s < data.length; s++) for (const y of data[s]) if (y !== null && y !== undefined) n++;
    return n;
  }

  function overlaps(a, b) {
    return a.x < b.x + b.w + 2 && b.x < a.x + a.w + 2 && a.y < b.y + b.h + 1 && b.y < a.y + a.h + 1;
  }

  // Where a label may go, in order of preference: beside a vertical line, row by row from the top;
  // above or below a horizontal line, at the right end first.
  function* spots(m, w, h, W, H) {
    if (m.x !== undefined) {
      for (let y = 2; y + h <= H; y += h + 2) {
        yield { x: m.px + 3, y: y };
        yield { x: m.px - 3 - w, y: y };
      }
    } else {
      for (const x of [W - w - 4, 4, (W - w) / 2])
        for (let d = 1; d < H; d += h + 2) {
          yield { x: x, y: m.py - h - d };
          yield { x: x, y: m.py + d };
        }
    }
  }

  // The marks' lines on the canvas and their labels as elements over it, placed so that no two
  // overlap; a label that finds no room is named below the plot instead.
  function marksPlugin(spec, box) {
    const marks = (spec.marks || []).map((m) => Object.assign({}, m));
    const hmarks = (spec.hmarks || []).map((m) => Object.assign({}, m));
    let layer = null;
    function draw(u) {
      const ctx = u.ctx;
      const { top, height, left, width } = u.bbox;
      const W = width / PX, H = height / PX;
      ctx.save();
      ctx.lineWidth = 1.3 * PX;
      const live = [];
      for (const m of marks) {
        const x = u.valToPos(m.x, "x", true);
        if (!isFinite(x) || x < left - 1 || x > left + width + 1) continue;
        ctx.strokeStyle = m.color || MARK_COLOR[m.kind] || "#333";
        ctx.setLineDash(STYLES.inferred.dash.map((d) => d * PX));
        ctx.beginPath();
        ctx.moveTo(x, top);
        ctx.lineTo(x, top + height);
        ctx.stroke();
        live.push(Object.assign(m, { px: (x - left) / PX }));
      }
      for (const m of hmarks) {
        const y = u.valToPos(m.y, "y", true);
        if (!isFinite(y) || y < top - 1 || y > top + height + 1) continue;
        ctx.strokeStyle = m.color || MARK_COLOR[m.kind] || "#333";
        ctx.setLineDash((m.kind === "peak" ? STYLES.peak : STYLES.inferred).dash.map((d) => d * PX));
        ctx.beginPath();
        ctx.moveTo(left, y);
        ctx.lineTo(left + width, y);
        ctx.stroke();
        live.push(Object.assign(m, { py: (y - top) / PX }));
      }
      ctx.restore();
      if (!layer) {
        layer = el("div", { class: "mark-layer" });
        u.over.appendChild(layer);
      }
      layer.textContent = "";
      const placed = [], unlabelled = [];
      const items = live.map((m) => {
        const e = el("span", { class: "mark-label " + (m.kind || "") }, m.label);
        e.style.color = m.color || MARK_COLOR[m.kind] || "#333";
        layer.appendChild(e);
        return { m: m, e: e, w: e.offsetWidth, h: e.offsetHeight };
      });
      items.sort((a, b) => (a.m.px ?? 1e9) - (b.m.px ?? 1e9));
      for (const it of items) {
        let spot = null;
        for (const s of spots(it.m, it.w, it.h, W, H)) {
          const r = { x: s.x, y: s.y, w: it.w, h: it.h };
          if (r.x < 0 || r.y < 0 || r.x + r.w > W || r.y + r.h > H) continue;
          if (placed.some((p) => overlaps(p, r))) continue;
          spot = r;
          break;
        }
        if (!spot) {
          it.e.remove();
          unlabelled.push(it.m.label);
          continue;
        }
        placed.push(spot);
        it.e.style.left = spot.x + "px";
        it.e.style.top = spot.y + "px";
      }
      const note = box.querySelector(".unlabelled");
      note.textContent = unlabelled.length ? "Marked without a label, for want of room: " + unlabelled.join("; ") + "." : "";
    }
    return { hooks: { draw: [draw] } };
  }

  function legend(box, u, spec, colors) {
    const ul = el("ul", { class: "legend" });
    const items = spec.series.map((s, i) => {
      const li = el("li", { "data-series": i, role: "button", tabindex: "0", title: "click to hide or show" });
      li.appendChild(swatch(colors[i], s.dash || []));
      li.appendChild(el("span", {}, s.label));
      const set = (on) => { u.setSeries(i + 1, { show: on }); li.classList.toggle("off", !on); };
      li.classList.toggle("off", !u.series[i + 1].show);
      li.addEventListener("click", () => set(!u.series[i + 1].show));
      li.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); set(!u.series[i + 1].show); } });
      li.set = set;
      ul.appendChild(li);
      return li;
    });
    box.appendChild(ul);
    if (spec.shown) {
      const n = spec.series.length, k = spec.shown.length;
      const p = el("p", { class: "note best" }, "Drawn: the " + k + " of " + n + " configurations with the highest peaks; " +
        "click an entry to add or remove it, or ");
      const btn = el("button", { type: "button", class: "show-all" }, "show all " + n);
      btn.addEventListener("click", () => {
        const all = btn.dataset.all !== "1";
        u.batch(() => items.forEach((li, i) => li.set(all || spec.shown.includes(i))));
        btn.dataset.all = all ? "1" : "";
        btn.textContent = all ? "show the best " + k : "show all " + n;
      });
      p.appendChild(btn);
      box.appendChild(p);
    }
  }

  // spec: {id, title, xlabel, ylabel, kind line|points|bars, xscale, xfmt, marks, hmarks, categories, shown,
  //        series:[{label,x,y,dash,color}], points}
  function drawPlot(parent, spec) {
    const box = el("figure", { class: "plot", "data-plot-id": spec.id, "data-points-expected": spec.points });
    box.appendChild(el("figcaption", {}, spec.title));
    parent.appendChild(box);
    const xsSet = new Set();
    for (const s of spec.series) for (const x of s.x) xsSet.add(x);
    const xs = Array.from(xsSet).sort((a, b) => a - b);
    const data = [xs];
    for (const s of spec.series) {
      const m = new Map();
      s.x.forEach((x, i) => m.set(x, s.y[i]));
      data.push(xs.map((x) => (m.has(x) ? m.get(x) : null)));
    }
    const log = spec.xscale === "log" && xs.length && xs[0] > 0;
    const n = spec.series.length;
    const bars = spec.kind === "bars";
    const shown = spec.shown ? new Set(spec.shown) : null;
    const series = [{ label: spec.xlabel }];
    const colors = spec.series.map((s, i) => s.color || color(i, n));
    spec.series.forEach((s, i) => {
      const c = colors[i];
      const o = { label: s.label, stroke: c, width: 1.2, spanGaps: true, show: !shown || shown.has(i),
                  dash: (s.dash || []).map((d) => d * PX),
                  points: { show: spec.kind !== "line" || xs.length <= 40, size: spec.kind === "points" ? 3 : 4, fill: c } };
      if (spec.kind === "points") o.paths = () => null;
      if (bars) { o.paths = uPlot.paths.bars({ size: [0.6, 80] }); o.fill = c + "99"; o.points = { show: false }; }
      series.push(o);
    });
    const cats = spec.categories;
    const xvals = spec.xfmt === "bytes" ? (u, v) => v.map(fmtBytes)
      : cats ? (u, v) => v.map((x) => (Number.isInteger(x) && cats[x] !== undefined ? cats[x] : ""))
      : (u, v) => v.map(fmtNum);
    const hmax = Math.max(-Infinity, ...(spec.hmarks || []).map((m) => m.y));
    const opts = {
      width: Math.max(320, Math.min(parent.clientWidth || 900, 1100) - 8),
      height: 300,
      series: series,
      scales: { x: log ? { distr: 3, log: 2, time: false } : { time: false, range: bars ? (u, lo, hi) => [lo - 0.6, hi + 0.6] : undefined } },
      axes: [{ label: spec.xlabel, values: xvals, splits: cats ? (u) => cats.map((_, i) => i) : undefined, rotate: cats ? -30 : 0,
               size: cats ? 70 : 50 },
             { label: spec.ylabel, values: (u, v) => v.map(fmtNum), size: 60 }],
      legend: { show: false },
      cursor: { points: { show: false } },
      plugins: [marksPlugin(spec, box)],
    };
    if (isFinite(hmax)) opts.scales.y = { range: (u, lo, hi) => [Math.min(lo ?? 0, 0), Math.max(hi ?? 0, hmax) * 1.08] };
    const u = new uPlot(opts, data, box);
    box.appendChild(el("p", { class: "note unlabelled" }));
    legend(box, u, spec, colors);
    const drawn = countPoints(u.data);
    box.dataset.pointsDrawn = drawn;
    box.dataset.series = n;
    if (spec.note) box.appendChild(el("p", { class: "note" }, spec.note));
    window.__memhierPlots.push({ id: spec.id, expected: spec.points, drawn: drawn, series: n });
    return u;
  }

  // One collapsible section per family; its plots are drawn when it is first opened.
  function drawAll(container, plots) {
    container.textContent = "";
    if (!plots.length) {
      container.appendChild(el("p", { class: "problem" }, "No curves: this archive holds no measurements the site can plot."));
      return;
    }
    const byFamily = new Map();
    for (const p of plots) {
      if (!byFamily.has(p.family)) byFamily.set(p.family, []);
      byFamily.get(p.family).push(p);
    }
    for (const [fam, specs] of byFamily) {
      const d = el("details", { class: "family", id: "family-" + fam, "data-family": fam });
      const s = el("summary", {}, FAMILIES[fam] || fam);
      s.appendChild(el("span", { class: "count" }, specs.length + (specs.length === 1 ? " plot" : " plots")));
      d.appendChild(s);
      const list = el("div", { class: "plots" });
      d.appendChild(list);
      d.addEventListener("toggle", () => {
        if (!d.open || d.dataset.drawn) return;
        try {
          for (const p of specs) drawPlot(list, p);
        } catch (e) {
          fail(list, e);
        }
        d.dataset.drawn = "1";
      });
      container.appendChild(d);
    }
    openTarget(location.hash.slice(1));
  }

  function fail(container, err) {
    console.error(err);
    const p = el("p", { class: "problem", role: "alert" }, "The data could not be shown: " + err.message);
    (container || document.body).appendChild(p);
  }

  // A link to a folded section opens it (and the sections around it).
  function openTarget(id) {
    const t = id && document.getElementById(decodeURIComponent(id));
    if (!t) return;
    for (let e = t; e; e = e.parentElement) if (e.tagName === "DETAILS") e.open = true;
    t.scrollIntoView();
  }

  function wireSections() {
    document.addEventListener("click", (e) => {
      const a = e.target.closest && e.target.closest('a[href^="#"]');
      if (a) openTarget(a.getAttribute("href").slice(1));
      const b = e.target.closest && e.target.closest(".expand-all, .collapse-all");
      if (b) for (const d of document.querySelectorAll("details.family, details.section")) d.open = b.classList.contains("expand-all");
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Pages

  async function archivePage() {
    lineKey(["measured", "inferred", "peak"]);
    const list = document.getElementById("plot-list");
    try {
      const d = await archiveData(document.body.dataset.archive);
      drawAll(list, d.plots);
    } catch (e) {
      list.textContent = "";
      fail(list, e);
    }
  }

  // Marks of both sides: one label where both put the same mark at the same place.
  function mergeMarks(sides, key) {
    const out = [];
    for (const [side, p] of Object.entries(sides)) {
      for (const m of p[key] || []) {
        const same = out.find((o) => o[key === "marks" ? "x" : "y"] === m[key === "marks" ? "x" : "y"] && o.base === m.label);
        if (same) {
          same.label = m.label + " (base and new)";
          same.color = MARK_COLOR[m.kind];
          continue;
        }
        out.push(Object.assign({}, m, { base: m.label, label: side + " " + m.label, color: MARK_COLOR[side] }));
      }
    }
    return out;
  }

  function overlay(a, b) {
    const byId = new Map();
    const order = [];
    for (const [side, d] of [["base", a], ["new", b]]) {
      for (const p of d.plots) {
        if (!byId.has(p.id)) { byId.set(p.id, { sides: {} }); order.push(p.id); }
        byId.get(p.id).sides[side] = p;
      }
    }
    return order.map((id) => {
      const { sides } = byId.get(id);
      const first = sides.base || sides.new;
      const spec = Object.assign({}, first, { series: [], points: 0, shown: null, note: "" });
      let cats = null;
      if (first.kind === "bars") {  // categories matched by name; markers, so that both sides show
        cats = [];
        for (const p of Object.values(sides)) for (const c of p.categories) if (!cats.includes(c)) cats.push(c);
        spec.kind = "line";
        spec.categories = cats;
      }
      const total = Object.values(sides).reduce((k, p) => k + p.series.length, 0);
      const shown = [];
      for (const [side, p] of Object.entries(sides)) {
        p.series.forEach((s, k) => {
          const x = cats ? s.x.map((xi) => cats.indexOf(p.categories[xi])) : s.x;
          const col = total > 2 ? color(k, p.series.length) : MARK_COLOR[side];
          if (!p.shown || p.shown.includes(k)) shown.push(spec.series.length);
          spec.series.push({ label: side + ": " + s.label, x: x, y: s.y, color: col, dash: STYLES[side].dash });
        });
        spec.points += p.points;
      }
      if (shown.length < spec.series.length) spec.shown = shown;
      spec.marks = mergeMarks(sides, "marks");
      spec.hmarks = mergeMarks(sides, "hmarks");
      spec.title = first.title + (Object.keys(sides).length < 2 ? " (" + Object.keys(sides)[0] + " only)" : "");
      return spec;
    });
  }

  function archiveLabel(x) {
    return x ? x.gpu + " · " + x.driver + " · " + x.utc + (x.usable ? "" : " (broken)") : "?";
  }

  function headlineTable(c) {
    const sec = document.getElementById("headline");
    sec.textContent = "";
    sec.appendChild(el("h2", {}, "memhier-compare headline"));
    if (c.error) {
      sec.appendChild(el("p", { class: "problem", id: "gate" }, c.error));
      return;
    }
    const g = c.gate || {};
    const gate = el("p", { id: "gate", class: "gate" + (c.gate_tone ? " tone-" + c.gate_tone : "") });
    gate.textContent = "gate: " + (g.result || "?") + " (exit " + c.exit_code + ")" +
      (c.verdicts ? "" : c.side_by_side ? " — no verdicts: two different GPUs side by side (--ignore-device)" : " — no verdicts") +
      (g.worse && g.worse.length ? "; worse: " + g.worse.join(", ") : "") +
      (g.structural_changes && g.structural_changes.length ? "; structure changed: " + g.structural_changes.join(", ") : "");
    sec.appendChild(gate);
    const who = el("p", {});
    who.textContent = "base " + c.base.gpu + ", driver " + c.base.driver + ", " + c.base.utc + " — new " + c.new.gpu + ", driver " +
      c.new.driver + ", " + c.new.utc + (c.ignore_device ? " (--ignore-device)" : "");
    sec.appendChild(who);
    for (const n of c.notes || []) sec.appendChild(el("p", { class: "note" }, n));
    if ((c.context_differences || []).length)
      sec.appendChild(el("p", { class: "note" }, "context differing: " + c.context_differences.map((d) => d.key + " " + d.base + " → " + d.new).join(", ")));
    // the figures (latencies, bandwidths) first; the structural fields below, folded unless a verdict calls
    const figs = (c.figures || []).filter((f) => f.kind !== "structure");
    const struct = (c.figures || []).filter((f) => f.kind === "structure");
    sec.appendChild(el("h3", {}, "Figures (" + (c.verdicts ? summary(figs, true) : figs.length) + ")"));
    sec.appendChild(figureTable(figs, c));
    const det = el("details", { id: "structure" });
    if (c.verdicts && struct.some((f) => f.verdict !== "SAME")) det.open = true;
    det.appendChild(el("summary", {}, "Structure: " + struct.length + " fields (" + summary(struct, c.verdicts) + ")"));
    det.appendChild(figureTable(struct, c));
    sec.appendChild(det);
  }

  function summary(figs, verdicts) {
    if (!verdicts) {  // structural values: equal or not
      const d = figs.filter((f) => f.differs).length;
      return d + " of " + figs.length + " differ";
    }
    const n = {};
    for (const f of figs) n[f.verdict] = (n[f.verdict] || 0) + 1;
    return Object.entries(n).map(([v, k]) => k + " " + v).join(", ") || "none";
  }

  function figureTable(figs, c) {
    const t = el("table", { class: "compare" });
    const head = el("tr");
    const cols = ["figure", "kind", "base", "new", c.side_by_side ? "new/base" : "change"].concat(c.verdicts ? ["verdict"] : [], ["note"]);
    for (const h of cols) head.appendChild(el("th", {}, h));
    t.appendChild(el("thead")).appendChild(head);
    const body = t.appendChild(el("tbody"));
    for (const f of figs) {
      const tr = el("tr", { "data-figure-id": f.id });
      if (c.verdicts && f.tone) tr.className = "tone-" + f.tone;
      tr.appendChild(el("td", { title: f.id }, f.label));
      tr.appendChild(el("td", {}, f.kind));
      tr.appendChild(el("td", { title: JSON.stringify(f.base) }, f.base_text));
      tr.appendChild(el("td", { title: JSON.stringify(f.new) }, f.new_text));
      tr.appendChild(el("td", {}, f.change_text));
      if (c.verdicts) tr.appendChild(el("td", { class: "verdict" + (f.tone ? " tone-" + f.tone : "") }, f.verdict));
      tr.appendChild(el("td", {}, f.note || ""));
      body.appendChild(tr);
    }
    return t;
  }

  async function comparePage() {
    lineKey(["base", "new", "inferred", "peak"]);
    const params = new URLSearchParams(location.search);
    const ids = SITE.archives.map((x) => x.id);
    const first = SITE.pairs[0];
    let a = params.get("a") || (first && first.a) || ids[1] || ids[0];
    let b = params.get("b") || (first && first.b) || ids[0];
    for (const [sel, v] of [["pick-a", a], ["pick-b", b]]) {
      const s = document.getElementById(sel);
      for (const x of SITE.archives) {
        const o = el("option", { value: x.id }, archiveLabel(x));
        if (x.id === v) o.selected = true;
        s.appendChild(o);
      }
    }
    const pl = document.getElementById("pair-list");
    for (const p of SITE.pairs) {
      const li = el("li");
      const link = el("a", { href: "compare.html?a=" + encodeURIComponent(p.a) + "&b=" + encodeURIComponent(p.b) });
      const A = SITE.archives.find((x) => x.id === p.a), B = SITE.archives.find((x) => x.id === p.b);
      link.textContent = archiveLabel(A) + " → " + archiveLabel(B);
      li.appendChild(link);
      li.appendChild(document.createTextNode(" " + (p.ignore_device ? "(--ignore-device) " : "") + (p.verdict || "not computed")));
      pl.appendChild(li);
    }
    const list = document.getElementById("plot-list");
    if (!ids.includes(a) || !ids.includes(b)) {
      fail(list, new Error("no such archive in this site: " + (ids.includes(a) ? b : a)));
      return;
    }
    const A = SITE.archives.find((x) => x.id === a), B = SITE.archives.find((x) => x.id === b);
    document.title = "compare " + archiveLabel(A) + " → " + archiveLabel(B) + " — memhier";
    const pair = SITE.pairs.find((p) => p.a === a && p.b === b && p.computed);
    try {
      if (pair) headlineTable(await compareData(a, b));
      else {
        const sec = document.getElementById("headline");
        sec.appendChild(el("h2", {}, "memhier-compare headline"));
        sec.appendChild(el("p", { class: "problem", id: "gate" }, SITE.compare_available
          ? "memhier-compare was not run for this pair when the site was built: the pairs above have verdicts. The curves are overlaid below."
          : "memhier-compare was not available when the site was built: no verdicts. The curves are overlaid below."));
      }
      const [da, db] = await Promise.all([archiveData(a), archiveData(b)]);
      drawAll(list, overlay(da, db));
    } catch (e) {
      fail(list, e);
    }
  }

  async function main() {
    const kind = document.body.dataset.page;
    wireSections();
    try {
      if (kind === "archive") await archivePage();
      else if (kind === "compare") await comparePage();
    } finally {
      window.__memhierReady = true;
      document.body.dataset.ready = "1";
    }
  }
  main();
})();
