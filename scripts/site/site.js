// memhier results site (scripts/site.py, docs/site.md): draws every plot in the browser with uPlot
// from the archives' data files (gzip-compressed JSON in a JS file: pages work from file://).
(function () {
  "use strict";
  const SITE = window.MEMHIER_SITE || { archives: [], pairs: [] };
  const ROOT = document.body.dataset.root || "";
  const FAMILIES = {
    pchase: "P-chase: latency and miss rate vs footprint",
    tlb: "TLB steps",
    bandwidth: "Bandwidth sweeps",
    bank_conflict: "Shared-memory bank-conflict law",
    spectrum: "Latency spectrum",
    outstanding: "Outstanding-request ramps",
  };
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
  // Formatting

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

  function fmtValue(id, v) {
    if (v === null || v === undefined) return "—";
    if (Array.isArray(v)) {
      if (v.length > 8 && v.every((x) => JSON.stringify(x) === JSON.stringify(v[0])))
        return "[" + JSON.stringify(v[0]) + " × " + v.length + "]";
      const s = JSON.stringify(v);
      return s.length > 60 ? s.slice(0, 57) + "…]" : s;
    }
    if (typeof v === "number") {
      if (/bytes_per_second/.test(id)) return (v / 1e12).toFixed(3) + " TB/s";
      if (/bytes/.test(id) && !/per_clock/.test(id) && v >= 1024) return fmtBytes(v) + " (" + v + ")";
      return fmtNum(v);
    }
    return String(v);
  }

  function color(i, n) {
    const base = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];
    if (n <= base.length) return base[i % base.length];
    return "hsl(" + Math.round((i * 137.5) % 360) + ", 65%, " + (38 + (i % 3) * 9) + "%)";
  }

  // ---------------------------------------------------------------------------------------------
  // Plots

  function countPoints(data) {
    let n = 0;
    for (let s = 1; s < data.length; s++) for (const y of data[s]) if (y !== null && y !== undefined) n++;
    return n;
  }

  function marksPlugin(marks) {
    return {
      hooks: {
        draw: [
          (u) => {
            const ctx = u.ctx;
            const { top, height, left, width } = u.bbox;
            ctx.save();
            ctx.font = 10 * devicePixelRatio + "px sans-serif";
            ctx.textAlign = "left";
            ctx.textBaseline = "alphabetic";
            let row = 0;
            for (const m of marks) {
              const x = u.valToPos(m.x, "x", true);
              if (!isFinite(x) || x < left - 1 || x > left + width + 1) continue;
              ctx.strokeStyle = m.color || (m.kind === "onset" ? "#e67e22" : "#444");
              ctx.setLineDash([5 * devicePixelRatio, 4 * devicePixelRatio]);
              ctx.lineWidth = devicePixelRatio;
              ctx.beginPath();
              ctx.moveTo(x, top);
              ctx.lineTo(x, top + height);
              ctx.stroke();
              ctx.fillStyle = ctx.strokeStyle;
              ctx.fillText(m.label, x + 3 * devicePixelRatio, top + (12 + 12 * (row++ % 6)) * devicePixelRatio);
            }
            ctx.restore();
          },
        ],
      },
    };
  }

  // spec: {id, title, xlabel, ylabel, kind line|points|bars, xscale, xfmt, marks, categories, series:[{label,x,y,dash}], points}
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
    const series = [{ label: spec.xlabel }];
    spec.series.forEach((s, i) => {
      const c = s.color || color(i, n);
      const o = { label: s.label, stroke: c, width: 1.2, spanGaps: true, dash: s.dash,
                  points: { show: spec.kind !== "line" || xs.length <= 40, size: spec.kind === "points" ? 3 : 4, fill: c } };
      if (spec.kind === "points") o.paths = () => null;
      if (bars) { o.paths = uPlot.paths.bars({ size: [0.6, 80] }); o.fill = c + "99"; o.points = { show: false }; }
      series.push(o);
    });
    const cats = spec.categories;
    const xvals = spec.xfmt === "bytes" ? (u, v) => v.map(fmtBytes)
      : cats ? (u, v) => v.map((x) => (Number.isInteger(x) && cats[x] !== undefined ? cats[x] : ""))
      : (u, v) => v.map(fmtNum);
    const opts = {
      width: Math.max(320, Math.min(parent.clientWidth || 900, 1100) - 8),
      height: 300,
      series: series,
      scales: { x: log ? { distr: 3, log: 2, time: false } : { time: false, range: bars ? (u, lo, hi) => [lo - 0.6, hi + 0.6] : undefined } },
      axes: [{ label: spec.xlabel, values: xvals, splits: cats ? (u) => cats.map((_, i) => i) : undefined, rotate: cats ? -30 : 0,
               size: cats ? 70 : 50 },
             { label: spec.ylabel, values: (u, v) => v.map(fmtNum), size: 60 }],
      legend: { live: false },
      cursor: { points: { show: false } },
      plugins: [marksPlugin(spec.marks || [])],
    };
    const u = new uPlot(opts, data, box);
    const drawn = countPoints(u.data);
    box.dataset.pointsDrawn = drawn;
    box.dataset.series = n;
    if (spec.note) box.appendChild(el("p", { class: "note" }, spec.note));
    window.__memhierPlots.push({ id: spec.id, expected: spec.points, drawn: drawn, series: n });
    return u;
  }

  function drawAll(container, plots) {
    container.textContent = "";
    if (!plots.length) {
      container.appendChild(el("p", { class: "problem" }, "No curves: this archive holds no measurements the site can plot."));
      return;
    }
    let fam = null;
    for (const p of plots) {
      if (p.family !== fam) {
        fam = p.family;
        container.appendChild(el("h3", { id: "family-" + fam }, FAMILIES[fam] || fam));
      }
      drawPlot(container, p);
    }
  }

  function fail(container, err) {
    console.error(err);
    const p = el("p", { class: "problem", role: "alert" }, "The data could not be shown: " + err.message);
    (container || document.body).appendChild(p);
  }

  // ---------------------------------------------------------------------------------------------
  // Pages

  async function archivePage() {
    const list = document.getElementById("plot-list");
    try {
      const d = await archiveData(document.body.dataset.archive);
      drawAll(list, d.plots);
    } catch (e) {
      list.textContent = "";
      fail(list, e);
    }
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
      const spec = Object.assign({}, first, { series: [], marks: [], points: 0 });
      let cats = null;
      if (first.kind === "bars") {  // categories matched by name; markers, so that both sides show
        cats = [];
        for (const p of Object.values(sides)) for (const c of p.categories) if (!cats.includes(c)) cats.push(c);
        spec.kind = "line";
        spec.categories = cats;
      }
      let i = 0;
      const total = Object.values(sides).reduce((k, p) => k + p.series.length, 0);
      for (const [side, p] of Object.entries(sides)) {
        p.series.forEach((s, k) => {
          const x = cats ? s.x.map((xi) => cats.indexOf(p.categories[xi])) : s.x;
          const col = total > 2 ? color(k, p.series.length) : (side === "base" ? "#1f77b4" : "#d62728");
          spec.series.push({ label: side + ": " + s.label, x: x, y: s.y, color: col, dash: side === "new" ? [6, 4] : undefined });
          i++;
        });
        for (const m of p.marks) spec.marks.push(Object.assign({}, m, { label: side + " " + m.label, color: side === "base" ? "#1f77b4" : "#d62728" }));
        spec.points += p.points;
      }
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
    const gate = el("p", { id: "gate", class: "gate " + (g.result || "") });
    gate.textContent = "gate: " + (g.result || "?") + " (exit " + c.exit_code + ")" +
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
    // the figures (latencies, bandwidths) first; the structural fields below, folded when all are SAME
    const figs = (c.figures || []).filter((f) => f.kind !== "structure");
    const struct = (c.figures || []).filter((f) => f.kind === "structure");
    sec.appendChild(el("h3", {}, "Figures (" + summary(figs) + ")"));
    sec.appendChild(figureTable(figs, c.ignore_device));
    const det = el("details", { id: "structure" });
    if (struct.some((f) => f.verdict !== "SAME")) det.open = true;
    det.appendChild(el("summary", {}, "Structure: " + struct.length + " fields (" + summary(struct) + ")"));
    det.appendChild(figureTable(struct, c.ignore_device));
    sec.appendChild(det);
  }

  function summary(figs) {
    const n = {};
    for (const f of figs) n[f.verdict] = (n[f.verdict] || 0) + 1;
    return Object.entries(n).map(([v, k]) => k + " " + v).join(", ") || "none";
  }

  function figureTable(figs, ratio) {
    const t = el("table", { class: "compare" });
    const head = el("tr");
    for (const h of ["figure", "kind", "base", "new", ratio ? "new/base" : "change", "verdict", "note"]) head.appendChild(el("th", {}, h));
    t.appendChild(el("thead")).appendChild(head);
    const body = t.appendChild(el("tbody"));
    for (const f of figs) {
      const tr = el("tr", { "data-figure-id": f.id, class: f.verdict });
      tr.appendChild(el("td", { title: f.id }, f.label));
      tr.appendChild(el("td", {}, f.kind));
      tr.appendChild(el("td", {}, fmtValue(f.id, f.base)));
      tr.appendChild(el("td", {}, fmtValue(f.id, f.new)));
      const ch = f.change === null || f.change === undefined ? "" : ratio ? "×" + (1 + f.change).toFixed(2) : (f.change * 100).toFixed(1) + " %";
      tr.appendChild(el("td", {}, ch));
      tr.appendChild(el("td", { class: "verdict " + f.verdict }, f.verdict));
      tr.appendChild(el("td", {}, f.note || ""));
      body.appendChild(tr);
    }
    return t;
  }

  async function comparePage() {
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
