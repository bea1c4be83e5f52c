#!/usr/bin/env node
// Browser test of the static site (scripts/site.py; docs/site.md): Playwright drives the system's
// Chromium over file:// pages and checks that
//   - every page (index, each archive, each precomputed comparison) loads with no console error,
//     no page error and no failed request;
//   - an archive page's first screen (1280 x 1000) holds its summary and its contents; its plots
//     sit in folded families and are drawn when a family opens ("expand all" here);
//   - every plot draws the number of points of its data (the data file decoded here, in node);
//   - no two labels of a plot's marks overlap (their bounding boxes), every legend shows all its
//     entries (nothing clipped or scrolled away), and the DRAM plots draw the theoretical peak;
//   - no page shows escaped markup as text (&lt; &amp;lt; ...);
//   - each usable archive has a plot of each family its bench.json holds (the committed H100 and
//     H200 archives hold all of them);
//   - the compare page shows, figure by figure, the verdicts memhier-compare gives (run here), and
//     a pair without verdicts (different GPUs side by side) shows no verdict and no verdict colour;
//   - the broken archive's page says what is wrong, and the index marks it;
//   - a site built without memhier-compare says so (--no-compare-site), and there an archive whose
//     topology.json has the memhier-topology/2 shape (--new-shape ID, a copy of --old-shape ID)
//     shows the same summary as the original.
// usage: node site_test.js --site DIR --results DIR --node-modules DIR --compare TOOL --broken ID
//                          [--no-compare-site DIR [--old-shape ID --new-shape ID]] [--screenshots DIR]
// Exit 0 pass, 1 fail, 77 skip (no browser / no playwright-core).
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const vm = require("vm");
const zlib = require("zlib");
const { execFileSync } = require("child_process");

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const CHROMIUM = process.env.MEMHIER_CHROMIUM || "/usr/bin/chromium";
let failures = 0;
function check(ok, what) {
  if (!ok) { failures++; console.log("FAIL " + what); }
  return ok;
}
function skip(why) { console.log("SKIP: " + why); process.exit(77); }

let chromium;
try {
  chromium = require(path.join(path.resolve(args["node-modules"]), "playwright-core")).chromium;
} catch (e) { skip("playwright-core is not installed in " + args["node-modules"] + " (" + e.message.split("\n")[0] + ")"); }
if (!fs.existsSync(CHROMIUM)) skip(CHROMIUM + " is missing (Debian: apt-get install chromium)");

const SITE = path.resolve(args.site);
function loadGlobals(file) {  // runs a data file of the site in a sandbox: its window globals
  const sandbox = { window: {} };
  vm.runInNewContext(fs.readFileSync(file, "utf8"), sandbox);
  return sandbox.window;
}
function decode(b64) { return JSON.parse(zlib.gunzipSync(Buffer.from(b64, "base64")).toString()); }
function dataOf(id) { return decode(loadGlobals(path.join(SITE, "data", id + ".js")).MEMHIER_DATA[id]); }
function points(spec) {  // what a plot must draw: every measured point of every series
  return spec.series.reduce((n, s) => n + s.y.filter((y) => y !== null && y !== undefined).length, 0);
}
const manifest = loadGlobals(path.join(SITE, "data", "manifest.js")).MEMHIER_SITE;
const url = (rel) => "file://" + path.join(SITE, rel).split(path.sep).map(encodeURIComponent).join("/").replace(/%3F/, "?").replace(/%26/g, "&").replace(/%3D/g, "=");

async function open(ctx, rel) {
  const page = await ctx.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") errors.push(m.type() + ": " + m.text()); });
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  page.on("requestfailed", (r) => errors.push("request failed: " + r.url()));
  await page.goto(url(rel));
  await page.waitForFunction(() => document.body.dataset.ready === "1" || document.body.dataset.page === "index", null, { timeout: 30000 });
  return { page, errors };
}

// Opens every folded family and waits until its plots are drawn.
async function expandAll(page) {
  await page.click(".expand-all");
  await page.waitForFunction(() => !document.querySelector("details.family:not([data-drawn])"), null, { timeout: 60000 });
}

// The first screen holds the summary and the contents (the viewport is 1280 x 1000).
async function firstScreen(page, where) {
  const r = await page.evaluate(() => ["#summary", "#toc"].map((q) => {
    const e = document.querySelector(q);
    return e ? [q, e.getBoundingClientRect().top, e.getBoundingClientRect().bottom] : [q, null, null];
  }));
  for (const [q, top, bottom] of r)
    check(top !== null && top >= 0 && bottom <= 1000, where + ": " + q + " is not on the first screen (" + top + " to " + bottom + " px)");
}

// No text that reads as escaped markup: escaping happened twice somewhere.
async function noEscapedMarkup(page, where) {
  const t = await page.evaluate(() => [document.body.innerText, document.body.textContent, document.title]);
  const m = t.join("\n").match(/&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);/i);
  check(!m, where + ": escaped markup shown as text: '" + (m ? t.join("\n").substr(Math.max(0, m.index - 40), 90) : "") + "'");
}

// Within each plot: no two mark labels overlap; every legend entry is inside its legend, which
// scrolls or clips nothing; the theoretical peak is labelled where the data have one.
async function checkLabels(page, where, specs) {
  const figs = await page.$$eval("figure.plot", (fs) => fs.map((f) => {
    const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; };
    const ul = f.querySelector("ul.legend");
    return {
      id: f.dataset.plotId, series: +f.dataset.series,
      labels: Array.from(f.querySelectorAll(".mark-label")).map((e) => Object.assign(box(e), { text: e.textContent, cls: e.className })),
      legend: ul ? { box: box(ul), sh: ul.scrollHeight, ch: ul.clientHeight, sw: ul.scrollWidth, cw: ul.clientWidth,
                     items: Array.from(ul.children).map(box) } : null,
    };
  }));
  const inside = (a, b) => a.x >= b.x - 1 && a.y >= b.y - 1 && a.x + a.w <= b.x + b.w + 1 && a.y + a.h <= b.y + b.h + 1;
  let labels = 0;
  for (const f of figs) {
    labels += f.labels.length;
    for (let i = 0; i < f.labels.length; i++)
      for (let j = i + 1; j < f.labels.length; j++) {
        const a = f.labels[i], b = f.labels[j];
        const over = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        check(!over, where + ": plot " + f.id + ": labels '" + a.text + "' and '" + b.text + "' overlap");
      }
    if (!check(f.legend, where + ": plot " + f.id + " has no legend")) continue;
    check(f.legend.items.length === f.series, where + ": plot " + f.id + ": legend of " + f.legend.items.length + " entries for " + f.series + " series");
    check(f.legend.sh <= f.legend.ch + 1 && f.legend.sw <= f.legend.cw + 1, where + ": plot " + f.id + ": the legend is clipped");
    check(f.legend.items.every((b) => b.h > 0 && inside(b, f.legend.box)), where + ": plot " + f.id + ": a legend entry lies outside its legend");
    const spec = specs.find((s) => s.id === f.id);
    if (spec && spec.hmarks && spec.hmarks.some((m) => m.kind === "peak"))
      check(f.labels.some((l) => /peak/.test(l.cls) && /peak/.test(l.text)), where + ": plot " + f.id + ": the theoretical peak is not drawn");
  }
  return labels;
}

// The colours the page gives a verdict (read from the page's own style sheet).
async function verdictColours(page) {
  return page.evaluate(() => {
    const out = new Set();
    for (const t of ["good", "bad", "better"]) {
      const table = document.createElement("table");
      table.className = "compare";
      const tr = table.insertRow();
      tr.className = "tone-" + t;
      const td = tr.insertCell();
      td.className = "verdict tone-" + t;
      document.body.appendChild(table);
      out.add(getComputedStyle(td).color);
      out.add(getComputedStyle(tr).backgroundColor);
      table.remove();
    }
    out.delete(getComputedStyle(document.body).color);
    out.delete("rgba(0, 0, 0, 0)");
    return Array.from(out);
  });
}

async function plotsOnPage(page) {
  return page.$$eval("figure.plot", (figs) => figs.map((f) => {
    const c = f.querySelector("canvas");
    return { id: f.dataset.plotId, drawn: +f.dataset.pointsDrawn, expected: +f.dataset.pointsExpected,
             canvas: c ? c.width * c.height : 0 };
  }));
}

function checkPlots(where, onPage, specs) {
  check(onPage.length === specs.length, where + ": " + onPage.length + " plots drawn, the data has " + specs.length);
  const byId = new Map(onPage.map((p) => [p.id, p]));
  for (const s of specs) {
    const p = byId.get(s.id);
    if (!check(p, where + ": plot " + s.id + " missing")) continue;
    check(p.drawn === points(s), where + ": plot " + s.id + " draws " + p.drawn + " points, its data has " + points(s));
    check(p.canvas > 0, where + ": plot " + s.id + " has no canvas");
  }
  return specs.reduce((n, s) => n + points(s), 0);
}

(async () => {
  const t0 = Date.now();
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "memhier-site-chromium-"));
  const ctx = await chromium.launchPersistentContext(userDir, {
    executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 1000 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync"],
  });
  try {
    // index
    let { page, errors } = await open(ctx, "index.html");
    check(errors.length === 0, "index.html: console errors: " + errors.join("; "));
    const rows = await page.$$eval("tr[data-archive]", (r) => r.map((x) => x.dataset.archive));
    check(rows.length === manifest.archives.length, "index lists " + rows.length + " archives of " + manifest.archives.length);
    check(!(await page.$("#no-compare")), "index.html says memhier-compare was missing, but it was given");
    const brokenRow = await page.$eval('tr[data-archive="' + args.broken + '"]', (r) => r.textContent).catch(() => "");
    check(/broken/.test(brokenRow) && /topology\.json/.test(brokenRow), "index row of the broken archive does not say so: " + brokenRow);
    await noEscapedMarkup(page, "index.html");
    await page.close();

    // every archive page
    const FAMILY_OF = { pchase: "pchase", tlb: "tlb", gmem_throughput: "bandwidth", l2_throughput: "bandwidth",
                        smem_bank_conflict: "bank_conflict", latency_spectrum: "spectrum", outstanding_requests: "outstanding" };
    let nPlots = 0, nPoints = 0, nLabels = 0;
    for (const a of manifest.archives) {
      ({ page, errors } = await open(ctx, "archive/" + a.id + ".html"));
      const where = "archive/" + a.id;
      const specs = dataOf(a.id).plots;
      if (a.usable) await firstScreen(page, where);
      if (args.screenshots && a.id === manifest.archives.find((x) => /h100/.test(x.id) && x.usable).id) {
        await page.click('#toc a[href="#family-pchase"]');
        await page.waitForSelector("#family-pchase[data-drawn]");
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: path.join(args.screenshots, "site-archive-h100.png"), fullPage: true,
                                clip: { x: 0, y: 0, width: 1280, height: 2000 } });
      }
      await expandAll(page);
      check(errors.length === 0, where + ": console errors: " + errors.join("; "));
      nPoints += checkPlots(where, await plotsOnPage(page), specs);
      nLabels += await checkLabels(page, where, specs);
      await noEscapedMarkup(page, where);
      nPlots += specs.length;
      if (a.id === args.broken) {
        const msg = await page.$eval('.problem[role="alert"]', (e) => e.textContent).catch(() => "");
        check(/broken/i.test(msg) && /topology\.json/.test(msg), where + ": no clear message on the broken archive: '" + msg + "'");
      } else {
        check(a.usable, where + ": usable archive flagged broken: " + a.problems.join("; "));
        const fams = new Set(specs.map((s) => s.family));
        for (const f of new Set(Object.values(FAMILY_OF))) check(fams.has(f), where + ": no plot of family " + f);
        const tables = await page.$$eval("#summary table, #topology table", (t) => t.length);
        check(tables >= 5, where + ": the topology has " + tables + " tables");
        const marks = specs.filter((s) => s.id === "pchase_global_ca_latency").map((s) => s.marks.length)[0] || 0;
        check(marks >= 2, where + ": the global_ca P-chase shows " + marks + " inferred edges");
      }
      await page.close();
    }

    // compare pages: every precomputed pair, verdicts against memhier-compare run here
    const byId = new Map(manifest.archives.map((a) => [a.id, a]));
    const dirOf = (id) => byId.get(id).path;
    let nVerdicts = 0, nUncoloured = 0;
    for (const p of manifest.pairs) {
      const where = "compare " + p.a + " -> " + p.b;
      ({ page, errors } = await open(ctx, "compare.html?a=" + p.a + "&b=" + p.b));
      const cmdArgs = ["--format=json"].concat(p.ignore_device ? ["--ignore-device"] : [])
        .concat([path.join(args.results, dirOf(p.a)), path.join(args.results, dirOf(p.b))]);
      let out;
      try { out = execFileSync(args.compare, cmdArgs, { encoding: "utf8" }); } catch (e) { out = e.stdout; }
      const want = JSON.parse(out);
      const shown = await page.$$eval("tr[data-figure-id]", (r) => r.map((x) => {
        const v = x.querySelector("td.verdict");
        return [x.dataset.figureId, v ? v.textContent : null];
      }));
      const shownMap = new Map(shown);
      check(shown.length === want.figures.length, where + ": " + shown.length + " figures shown, memhier-compare gives " + want.figures.length);
      const verdicts = ["pass", "fail"].includes(want.gate.result);
      if (verdicts) {
        for (const f of want.figures) {
          check(shownMap.get(f.id) === f.verdict, where + ": " + f.id + " shows " + shownMap.get(f.id) + ", memhier-compare says " + f.verdict);
          nVerdicts++;
        }
      } else {  // no verdicts: none shown, nothing coloured as one
        check(shown.every(([, v]) => v === null), where + ": gate " + want.gate.result + " (no verdicts), but the page shows verdicts");
        const tones = await verdictColours(page);
        const used = await page.$$eval("#headline *", (es) => es.map((e) => [e.tagName + "." + e.className + " " + (e.textContent || "").slice(0, 30),
          getComputedStyle(e).color, getComputedStyle(e).backgroundColor]));
        const coloured = used.filter(([, c, bg]) => tones.includes(c) || tones.includes(bg));
        check(tones.length >= 3, where + ": the verdict colours could not be read (" + tones.join(", ") + ")");
        check(coloured.length === 0, where + ": no verdicts, but coloured as one: " + coloured.slice(0, 3).map((x) => x[0]).join("; "));
        nUncoloured++;
      }
      const gate = await page.$eval("#gate", (e) => e.textContent).catch(() => "");
      check(gate.includes("gate: " + want.gate.result), where + ": gate line '" + gate + "', memhier-compare says " + want.gate.result);
      const A = dataOf(p.a).plots, B = dataOf(p.b).plots;
      const ids = new Set(A.map((s) => s.id).concat(B.map((s) => s.id)));
      await noEscapedMarkup(page, where);
      await expandAll(page);
      const onPage = await plotsOnPage(page);
      nLabels += await checkLabels(page, where, []);
      check(errors.length === 0, where + ": console errors: " + errors.join("; "));
      check(onPage.length === ids.size, where + ": " + onPage.length + " overlaid plots, the two archives have " + ids.size);
      for (const o of onPage) {
        const want = [A, B].reduce((n, side) => n + side.filter((s) => s.id === o.id).reduce((k, s) => k + points(s), 0), 0);
        check(o.drawn === want, where + ": overlay " + o.id + " draws " + o.drawn + " points, the two archives have " + want);
      }
      await page.close();
      if (args.screenshots && p.ignore_device && /h100/.test(p.a) && /h200/.test(p.b)) {
        ({ page } = await open(ctx, "compare.html?a=" + p.a + "&b=" + p.b));
        await page.click('#family-pchase > summary');
        await page.waitForSelector("#family-pchase[data-drawn]");
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: path.join(args.screenshots, "site-compare-h100-h200.png"), fullPage: true,
                                clip: { x: 0, y: 0, width: 1280, height: 2000 } });
        await page.close();
      }
    }
    check(manifest.pairs.some((p) => p.ignore_device), "no cross-GPU pair precomputed");
    check(nUncoloured > 0, "no compare page without verdicts was checked for colours");

    // a site built without memhier-compare says so
    if (args["no-compare-site"]) {
      const ctxSite = path.resolve(args["no-compare-site"]);
      const pg = await ctx.newPage();
      const errs = [];
      pg.on("console", (m) => { if (m.type() === "error") errs.push(m.text()); });
      await pg.goto("file://" + path.join(ctxSite, "index.html"));
      const msg = await pg.$eval("#no-compare", (e) => e.textContent).catch(() => "");
      check(/memhier-compare was not available/.test(msg), "site without memhier-compare: index does not say so");
      await noEscapedMarkup(pg, "site without memhier-compare: index.html");
      check(errs.length === 0, "site without memhier-compare: console errors " + errs.join("; "));
      await pg.close();
      // its archives: the broken ones say why (a missing directory too), none fails in the browser
      const m2 = loadGlobals(path.join(ctxSite, "data", "manifest.js")).MEMHIER_SITE;
      check(m2.archives.some((a) => a.problems.some((p) => /directory .* is missing/.test(p))), "no archive with a missing directory in the small site");
      for (const a of m2.archives) {
        const r = await open(ctx, path.relative(SITE, path.join(ctxSite, "archive", a.id + ".html")));
        check(r.errors.length === 0, "site without memhier-compare, " + a.id + ": console errors " + r.errors.join("; "));
        const msg = await r.page.$eval('.problem[role="alert"]', (e) => e.textContent).catch(() => "");
        if (!a.usable) check(/broken/i.test(msg) && (/topology\.json/.test(msg) || /missing/.test(msg)), "small site, " + a.id + ": no clear message: '" + msg + "'");
        await noEscapedMarkup(r.page, "small site, " + a.id);
        await r.page.close();
      }
      // a memhier-topology/2 archive (numbers and booleans, ways as a count) reads as its /1 original
      if (args["new-shape"]) {
        const summaryOf = async (id) => {
          const r = await open(ctx, path.relative(SITE, path.join(ctxSite, "archive", id + ".html")));
          const t = await r.page.$eval("#summary dl.figures", (e) => e.innerText).catch(() => "");
          await r.page.close();
          return t;
        };
        const oldS = await summaryOf(args["old-shape"]), newS = await summaryOf(args["new-shape"]);
        check(oldS && oldS === newS, "memhier-topology/2 archive: summary '" + newS.replace(/\s+/g, " ") + "', its /1 original '" +
              oldS.replace(/\s+/g, " ") + "'");
        check(/\d+ ways × [\d ]+ sets/.test(newS) && /wall\s+[\d.]+ s/.test(newS) && /SMs\s+\d+/.test(newS),
              "memhier-topology/2 archive: the summary lacks the geometry, wall time or SMs: " + newS.replace(/\s+/g, " "));
      }
    }
    console.log("site_test: " + manifest.archives.length + " archive pages (" + nPlots + " plots, " + nPoints + " points, " +
                nLabels + " mark labels), " + manifest.pairs.length + " compare pages (" + nVerdicts + " verdicts checked, " +
                nUncoloured + " without verdicts and uncoloured), " +
                ((Date.now() - t0) / 1000).toFixed(1) + " s; " + (failures ? failures + " FAILURES" : "all passed"));
  } finally {
    await ctx.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
