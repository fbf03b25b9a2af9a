// Browser test of `toytrans inspect --html`: runs the real command, opens the page it writes
// in Debian's Chromium (headless, driven by playwright-core; no browser is downloaded) and
// checks the page's DOM contract by clicking through it.
//
//   node tests/browser/inspect.test.mjs            (from the repository root; make test-browser)
//
// Environment:
//   TOYTRANS_BIN   the binary (default build/release/toytrans)
//   CHROMIUM       the browser (default /usr/bin/chromium)
//   INSPECT_PAGE   test this page instead of running toytrans (e.g. tests/browser/fixture.html)
//   SCREENSHOT     where the screenshot goes (default build/browser/inspect.png)
//
// Prints one line per check and a closing "N passed, M failed"; exit status 0 only when all
// checks passed (1 = a check failed, 2 = the test could not run).

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.resolve(ROOT, process.env.TOYTRANS_BIN || "build/release/toytrans");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const SHOT = path.resolve(ROOT, process.env.SCREENSHOT || "build/browser/inspect.png");
const TEXT = "This is an example";
const TIMEOUT = 10000;

let passed = 0, failed = 0;
function check(name, ok, detail = "") {
  if (ok) { passed++; console.log(`ok    ${name}`); }
  else { failed++; console.log(`FAIL  ${name}${detail ? ": " + detail : ""}`); }
  return ok;
}
let tmp = null;
function fatal(msg) {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  console.error(`inspect.test: ${msg}`);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(2);
}
const fmt = (x) => JSON.stringify(x);

// --- the page --------------------------------------------------------------------------
tmp = mkdtempSync(path.join(tmpdir(), "toytrans-browser-"));
let page_path;
if (process.env.INSPECT_PAGE) {
  page_path = path.resolve(ROOT, process.env.INSPECT_PAGE);
  if (!existsSync(page_path)) fatal(`INSPECT_PAGE ${page_path} does not exist`);
  console.log(`# page: ${page_path} (INSPECT_PAGE; toytrans not run)`);
} else {
  if (!existsSync(BIN)) fatal(`no toytrans binary at ${BIN} (make, or set TOYTRANS_BIN)`);
  page_path = path.join(tmp, "inspect.html");
  try {
    execFileSync(BIN, ["inspect", "--html", page_path, TEXT], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    fatal(`${BIN} inspect --html ${page_path} "${TEXT}" failed (exit ${e.status}):\n` +
          `${e.stderr || ""}${e.stdout || ""}`.trim());
  }
  if (!existsSync(page_path)) fatal(`toytrans inspect --html exited 0 but wrote no ${page_path}`);
  console.log(`# page: toytrans inspect --html ${page_path} "${TEXT}"`);
}

// What layer 0, head 0 should show for "Beispiel": the token the model itself attends to most,
// from `inspect --json` (the same forward pass, printed by the text side of the command). The
// fixture's numbers are those of the model shipped when it was written: "example", 0.9165.
let expect00 = { token: "example", weight: 0.9165 };
if (!process.env.INSPECT_PAGE) {
  let json;
  try {
    json = JSON.parse(execFileSync(BIN, ["inspect", "--json", "--layer", "0", "--head", "0", TEXT],
                                   { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] }).toString());
  } catch (e) {
    fatal(`${BIN} inspect --json --layer 0 --head 0 "${TEXT}" failed: ${e.message}`);
  }
  const w = json.words.findIndex((x) => x.word === "Beispiel");
  const layer0 = (json.cross_attention || []).find((l) => l.layer === 0);
  if (w < 0 || !layer0) fatal(`inspect --json: no "Beispiel" or no layer 0 in ${fmt(json).slice(0, 200)}`);
  const row = layer0.weights[w];
  const best = row.indexOf(Math.max(...row));
  expect00 = { token: json.source_tokens[best], weight: row[best] };
}
const PAGE_URL = pathToFileURL(page_path).href;

if (!existsSync(CHROMIUM)) fatal(`no browser at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM)`);

// --- the browser -----------------------------------------------------------------------
const profile = mkdtempSync(path.join(tmpdir(), "toytrans-chromium-"));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1000, height: 700 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
} catch (e) {
  rmSync(profile, { recursive: true, force: true });
  fatal(`could not start ${CHROMIUM}: ${e.message}`);
}

const consoleErrors = [];
const requests = [];
const page = context.pages()[0] || (await context.newPage());
page.setDefaultTimeout(TIMEOUT);
page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
page.on("pageerror", (e) => consoleErrors.push(`uncaught: ${e.message}`));
context.on("request", (r) => requests.push(r.url()));

const texts = (sel) => page.locator(sel).allTextContents().then((a) => a.map((s) => s.trim()));
const status = () => page.locator("#status").textContent().then((s) => (s || "").trim());
const heatmap = () => page.locator("#heatmap").innerHTML();
const options = (id) => page.locator(`#${id} option`).evaluateAll((os) => os.map((o) => o.value));
const value = (id) => page.locator(`#${id}`).inputValue();
async function top() {
  const tops = page.locator(".src-token.top");
  const n = await tops.count();
  if (n !== 1) return { n, text: null, weight: NaN };
  return { n, text: (await tops.textContent()).trim(), weight: Number(await tops.getAttribute("data-weight")) };
}
// Click the German word w (again, if a select change dropped the selection).
async function clickWord(w) {
  await page.locator(".tgt-word", { hasText: new RegExp(`^\\s*${w}\\s*$`) }).click();
}

try {
  await page.goto(PAGE_URL, { waitUntil: "load" });

  // 1. The page as it opens.
  const tgt = await texts("#target .tgt-word");
  const src = await texts("#source .src-token");
  check("5 .tgt-word in #target: Das ist ein Beispiel </s>",
        fmt(tgt) === fmt(["Das", "ist", "ein", "Beispiel", "</s>"]), `got ${fmt(tgt)}`);
  check("5 .src-token in #source, ending in example </s>",
        src.length === 5 && src[3] === "example" && src[4] === "</s>", `got ${fmt(src)}`);
  const idx = await page.locator(".tgt-word").evaluateAll((es) => es.map((e) => e.dataset.index));
  check(".tgt-word data-index 0..4", fmt(idx) === fmt(["0", "1", "2", "3", "4"]), `got ${fmt(idx)}`);
  const layers = await options("layer"), heads = await options("head"), kinds = await options("kind");
  const L = layers.length, H = heads.length - 1;
  check("#layer options 0..L-1, default the last",
        L > 0 && fmt(layers) === fmt(layers.map((_, i) => String(i))) && (await value("layer")) === String(L - 1),
        `options ${fmt(layers)}, value ${fmt(await value("layer"))}`);
  check("#head options mean,0..H-1, default mean",
        H > 0 && fmt(heads) === fmt(["mean", ...Array.from({ length: H }, (_, i) => String(i))]) &&
          (await value("head")) === "mean",
        `options ${fmt(heads)}, value ${fmt(await value("head"))}`);
  check("#kind options cross,self,encoder, default cross",
        fmt(kinds) === fmt(["cross", "self", "encoder"]) && (await value("kind")) === "cross",
        `options ${fmt(kinds)}, value ${fmt(await value("kind"))}`);
  const status0 = await status();

  // 2. Click "Beispiel" (cross, last layer, mean of the heads).
  await clickWord("Beispiel");
  const sel = await page.locator(".tgt-word.selected").allTextContents();
  check('clicking "Beispiel" marks it (and only it) selected', fmt(sel.map((s) => s.trim())) === fmt(["Beispiel"]),
        `selected: ${fmt(sel)}`);
  let t = await top();
  check('cross, last layer, mean: exactly one .src-token.top, "example", data-weight > 0.9',
        t.n === 1 && t.text === "example" && t.weight > 0.9, `${t.n} .top, text ${fmt(t.text)}, weight ${t.weight}`);
  const weights = await page.locator(".src-token").evaluateAll((es) => es.map((e) => e.getAttribute("data-weight")));
  const sum = weights.reduce((a, w) => a + Number(w), 0);
  check("every .src-token has a data-weight, summing to 1",
        weights.every((w) => w !== null && w !== "" && Number.isFinite(Number(w))) && Math.abs(sum - 1) < 0.02,
        `data-weight ${fmt(weights)}`);
  const status1 = await status(), heat1 = await heatmap();
  check("#status changes when a word is selected", status1 !== "" && status1 !== status0,
        `before ${fmt(status0)}, after ${fmt(status1)}`);
  check("#heatmap has rows", (await page.locator("#heatmap tr").count()) > 1);

  // 3. Layer 0, head 0: the page shows what inspect --json says for this head (expect00).
  await page.selectOption("#layer", "0");
  const status2 = await status();
  check("#status changes with the layer", status2 !== status1, `still ${fmt(status2)}`);
  await page.selectOption("#head", "0");
  if ((await page.locator(".tgt-word.selected").count()) === 0) await clickWord("Beispiel");
  t = await top();
  check(`layer 0, head 0: ${fmt(expect00.token)} on top, data-weight ${expect00.weight.toFixed(4)} as inspect --json has it`,
        t.n === 1 && t.text === expect00.token && Math.abs(t.weight - expect00.weight) < 0.001,
        `${t.n} .top, text ${fmt(t.text)}, weight ${t.weight}`);
  const status3 = await status(), heat3 = await heatmap();
  check("#status changes with the head", status3 !== status2, `still ${fmt(status3)}`);
  check("#heatmap redrawn for layer 0 head 0", heat3 !== heat1);

  // 4. Encoder self-attention: click a source token.
  await page.selectOption("#kind", "encoder");
  const status4 = await status();
  check("#status changes with the kind", status4 !== status3, `still ${fmt(status4)}`);
  await page.locator(".src-token", { hasText: /^\s*example\s*$/ }).click();
  const tops = await texts(".src-token.top");
  check('encoder: clicking the source token "example" gives exactly one .src-token.top',
        tops.length === 1, `.top: ${fmt(tops)}`);
  const status5 = await status();
  check("#status changes when a source token is selected", status5 !== status4, `still ${fmt(status5)}`);
  check("#heatmap redrawn for the encoder", (await heatmap()) !== heat3);

  // 4b. Reading it without colour: a legend with the scale, the probability of each
  // word, masked cells (later positions in self-attention) drawn apart from weight 0,
  // and every weight as text in its cell (for screen readers, or shown with "numbers").
  // (fixture.html, hand-written for the first contract, has none of these.)
  if (!process.env.INSPECT_PAGE) {
  check("#legend shows the colour scale", (await page.locator("#legend .bar").count()) === 1 &&
        /weight 0/.test(await page.locator("#legend").textContent()));
  await page.selectOption("#kind", "self");
  await clickWord("Beispiel");
  const masked = await page.locator("#heatmap td.masked").count();
  const maskedWeights = await page.locator("#heatmap td.masked[data-weight]").count();
  check("self: the 10 later positions of 5 rows are td.masked, none with a weight",
        masked === 10 && maskedWeights === 0, `${masked} masked, ${maskedWeights} with a weight`);
  const probs = (await texts("#heatmap td.prob")).map(Number);
  check("each German word's probability in a column of its own",
        probs.length === 5 && probs.every((p) => p > 0 && p <= 1), `got ${fmt(probs)}`);
  const wordTitle = await page.locator(".tgt-word").first().getAttribute("title");
  check("a German word's title gives its probability", /^probability 0\.\d{3}$/.test(wordTitle || ""),
        `title ${fmt(wordTitle)}`);
  const hidden = await page.locator("#heatmap td[data-weight] span.sr-only").count();
  const cells = await page.locator("#heatmap td[data-weight]").count();
  check("every weighted cell holds its value as text for screen readers",
        cells > 0 && hidden === cells, `${hidden} of ${cells}`);
  check("#heatmap has a caption naming what it shows",
        /self-attention/.test((await page.locator("#heatmap caption").textContent()) || ""));
  await page.locator("#numbers").check();
  const shown = await texts("#heatmap td[data-weight] span:not(.sr-only)");
  check('"numbers" shows each weight in its cell',
        shown.length === cells && shown.every((t) => /^\d\.\d\d$/.test(t)), `${shown.length} of ${cells}`);
  await page.locator("#numbers").uncheck();
  }

  // 5. Back to cross on the last layer for the picture.
  await page.selectOption("#kind", "cross");
  await page.selectOption("#layer", String(L - 1));
  await page.selectOption("#head", "mean");
  await clickWord("Beispiel");
  mkdirSync(path.dirname(SHOT), { recursive: true });
  await page.screenshot({ path: SHOT, fullPage: true });
  console.log(`# screenshot: ${path.relative(ROOT, SHOT)}`);

  // 6. A repeated German word and an unknown source word: the buttons, the table's rows
  // and its header name them alike (ist#1, ist#2; zoe? as on the source line).
  let page2Url = null;
  if (!process.env.INSPECT_PAGE) {
    const text2 = "Zoe is big and the cat is small.";
    const page2 = path.join(tmp, "inspect2.html");
    execFileSync(BIN, ["inspect", "--html", page2, text2], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    page2Url = pathToFileURL(page2).href;
    await page.goto(page2Url, { waitUntil: "load" });
    // As a reader sees them: a copied word's mark is drawn by CSS (::after), not text.
    const buttons = await page.locator("#target .tgt-word").evaluateAll((els) => els.map((el) => {
      const after = getComputedStyle(el, "::after").content;
      const mark = after && after !== "none" && after !== "normal" ? after.replace(/^"|"$/g, "") : "";
      return el.textContent.trim() + mark;
    }));
    const rowHeads = await texts("#heatmap th[scope=row]");
    check("repeated word: the buttons are labelled as the table's rows",
          fmt(buttons) === fmt(rowHeads) && buttons.includes("ist#1") && buttons.includes("ist#2"),
          `buttons ${fmt(buttons)}, rows ${fmt(rowHeads)}`);
    const colHeads = await texts("#heatmap th[scope=col]");
    check("unknown word: marked ? in the table's header", colHeads[0] === "zoe?",
          `got ${fmt(colHeads)}`);
    await page.selectOption("#kind", "encoder");
    const encRows = await texts("#heatmap th[scope=row]");
    check("unknown word: marked ? in the encoder table's rows", encRows[0] === "zoe?",
          `got ${fmt(encRows)}`);
  }

  // 7. Self-contained and clean.
  check("no console errors", consoleErrors.length === 0, consoleErrors.join(" | "));
  const foreign = requests.filter((u) => u !== PAGE_URL && u !== page2Url && !u.startsWith("data:"));
  check("no network requests (only the page's own file:// URL)", foreign.length === 0,
        `requested ${fmt([...new Set(foreign)])}`);
} catch (e) {
  check("the page could be driven", false, e.message.split("\n")[0]);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
