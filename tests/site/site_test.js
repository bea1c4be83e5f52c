#!/usr/bin/env node
// Browser test of the static site (scripts/site.py; docs/site.md): Playwright drives the system's
// Chromium over file:// pages and checks that
//   - every page (index, each archive, each precomputed comparison) loads with no console error,
//     no page error and no failed request;
//   - every plot draws the number of points of its data (the data file decoded here, in node);
//   - each usable archive has a plot of each family its bench.json holds (the committed H100 and
//     H200 archives hold all of them);
//   - the compare page shows, figure by figure, the verdicts memhier-compare gives (run here);
//   - the broken archive's page says what is wrong, and the index marks it;
//   - a site built without memhier-compare says so (--no-compare-site).
// usage: node site_test.js --site DIR --results DIR --node-modules DIR --compare TOOL --broken ID
//                          [--no-compare-site DIR] [--screenshots DIR]
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
    await page.close();

    // every archive page
    const FAMILY_OF = { pchase: "pchase", tlb: "tlb", gmem_throughput: "bandwidth", l2_throughput: "bandwidth",
                        smem_bank_conflict: "bank_conflict", latency_spectrum: "spectrum", outstanding_requests: "outstanding" };
    let nPlots = 0, nPoints = 0;
    for (const a of manifest.archives) {
      ({ page, errors } = await open(ctx, "archive/" + a.id + ".html"));
      const where = "archive/" + a.id;
      check(errors.length === 0, where + ": console errors: " + errors.join("; "));
      const specs = dataOf(a.id).plots;
      nPoints += checkPlots(where, await plotsOnPage(page), specs);
      nPlots += specs.length;
      if (a.id === args.broken) {
        const msg = await page.$eval('.problem[role="alert"]', (e) => e.textContent).catch(() => "");
        check(/broken/i.test(msg) && /topology\.json/.test(msg), where + ": no clear message on the broken archive: '" + msg + "'");
      } else {
        check(a.usable, where + ": usable archive flagged broken: " + a.problems.join("; "));
        const fams = new Set(specs.map((s) => s.family));
        for (const f of new Set(Object.values(FAMILY_OF))) check(fams.has(f), where + ": no plot of family " + f);
        const tables = await page.$$eval("#topology table", (t) => t.length);
        check(tables >= 5, where + ": the topology has " + tables + " tables");
        const marks = specs.filter((s) => s.id === "pchase_global_ca_latency").map((s) => s.marks.length)[0] || 0;
        check(marks >= 2, where + ": the global_ca P-chase shows " + marks + " inferred edges");
      }
      if (args.screenshots && a.id === manifest.archives.find((x) => /h100/.test(x.id) && x.usable).id) {
        await page.screenshot({ path: path.join(args.screenshots, "site-archive-h100.png"), fullPage: true,
                                clip: { x: 0, y: 0, width: 1280, height: 1500 } });
      }
      await page.close();
    }

    // compare pages: every precomputed pair, verdicts against memhier-compare run here
    const byId = new Map(manifest.archives.map((a) => [a.id, a]));
    const dirOf = (id) => byId.get(id).path;
    let nVerdicts = 0;
    for (const p of manifest.pairs) {
      const where = "compare " + p.a + " -> " + p.b;
      ({ page, errors } = await open(ctx, "compare.html?a=" + p.a + "&b=" + p.b));
      check(errors.length === 0, where + ": console errors: " + errors.join("; "));
      const cmdArgs = ["--format=json"].concat(p.ignore_device ? ["--ignore-device"] : [])
        .concat([path.join(args.results, dirOf(p.a)), path.join(args.results, dirOf(p.b))]);
      let out;
      try { out = execFileSync(args.compare, cmdArgs, { encoding: "utf8" }); } catch (e) { out = e.stdout; }
      const want = JSON.parse(out);
      const shown = await page.$$eval("tr[data-figure-id]", (r) => r.map((x) => [x.dataset.figureId, x.querySelector("td.verdict").textContent]));
      const shownMap = new Map(shown);
      check(shown.length === want.figures.length, where + ": " + shown.length + " figures shown, memhier-compare gives " + want.figures.length);
      for (const f of want.figures) {
        check(shownMap.get(f.id) === f.verdict, where + ": " + f.id + " shows " + shownMap.get(f.id) + ", memhier-compare says " + f.verdict);
        nVerdicts++;
      }
      const gate = await page.$eval("#gate", (e) => e.textContent).catch(() => "");
      check(gate.includes("gate: " + want.gate.result), where + ": gate line '" + gate + "', memhier-compare says " + want.gate.result);
      const A = dataOf(p.a).plots, B = dataOf(p.b).plots;
      const ids = new Set(A.map((s) => s.id).concat(B.map((s) => s.id)));
      const onPage = await plotsOnPage(page);
      check(onPage.length === ids.size, where + ": " + onPage.length + " overlaid plots, the two archives have " + ids.size);
      for (const o of onPage) {
        const want = [A, B].reduce((n, side) => n + side.filter((s) => s.id === o.id).reduce((k, s) => k + points(s), 0), 0);
        check(o.drawn === want, where + ": overlay " + o.id + " draws " + o.drawn + " points, the two archives have " + want);
      }
      if (args.screenshots && p.ignore_device && /h100/.test(p.a) && /h200/.test(p.b)) {
        await page.screenshot({ path: path.join(args.screenshots, "site-compare-h100-h200.png"), fullPage: true,
                                clip: { x: 0, y: 0, width: 1280, height: 1300 } });
      }
      await page.close();
    }
    check(manifest.pairs.some((p) => p.ignore_device), "no cross-GPU pair precomputed");

    // a site built without memhier-compare says so
    if (args["no-compare-site"]) {
      const ctxSite = path.resolve(args["no-compare-site"]);
      const pg = await ctx.newPage();
      const errs = [];
      pg.on("console", (m) => { if (m.type() === "error") errs.push(m.text()); });
      await pg.goto("file://" + path.join(ctxSite, "index.html"));
      const msg = await pg.$eval("#no-compare", (e) => e.textContent).catch(() => "");
      check(/memhier-compare was not available/.test(msg), "site without memhier-compare: index does not say so");
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
        await r.page.close();
      }
    }
    console.log("site_test: " + manifest.archives.length + " archive pages (" + nPlots + " plots, " + nPoints + " points), " +
                manifest.pairs.length + " compare pages (" + nVerdicts + " verdicts checked), " +
                ((Date.now() - t0) / 1000).toFixed(1) + " s; " + (failures ? failures + " FAILURES" : "all passed"));
  } finally {
    await ctx.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
