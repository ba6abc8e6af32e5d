/**
 * Issue 39's numbered defects, each in a real browser (Debian's Chromium driven by playwright-core,
 * as inspector-browser.test.ts), over a SQLite store of synthetic runs written straight into the
 * journal and status store and two eval results (inspector-defects.fixture.ts). Every test here fails
 * on the inspector before issue 39. It also takes the screenshots of docs/ui.md (each page at
 * 1280 and 390 px; into docs/images/ with TINYAGENTS_DOCS_SCREENSHOTS=1, else artifacts/ui/). Time budget: about 30 s (one Chromium, one server).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp } from "../../../../scripts/build/bundle-web-app.mjs";
import { expectAccessible, launchChromium } from "../../test/support/browser.js";
import { type CliStore, openCliStore } from "../core/cli-store.js";
import { seedDefectStore } from "./inspector-defects.fixture.js";
import { type InspectorServer, serveInspector } from "./inspector-server.js";

// The pictures of docs/ui.md are rewritten only when asked (TINYAGENTS_DOCS_SCREENSHOTS=1): their
// dates follow the clock, so every run would change them. Otherwise they go to artifacts/ui/.
const IMAGES = join(
  import.meta.dirname,
  process.env.TINYAGENTS_DOCS_SCREENSHOTS === "1" ? "../../../../docs/images" : "../../../../artifacts/ui",
);
// Two days ago on the hour: inside the dashboard's default window (the last 7 days) whenever it runs.
const HOUR = 3_600_000;
const T0 = Math.floor(Date.now() / HOUR) * HOUR - 2 * 24 * HOUR;
/** The resumed run's first start. */
const RESUMED_T0 = T0 + 36 * HOUR;

let dir: string;
let store: CliStore;
let server: InspectorServer;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "inspector-defects-"));
  mkdirSync(IMAGES, { recursive: true });
  const assetsDir = join(dir, "assets");
  await buildWebApp(join(import.meta.dirname, "../../ui-app"), assetsDir);
  store = await openCliStore(join(dir, "t.db"));
  const evals = await seedDefectStore(store, T0, RESUMED_T0);
  server = await serveInspector({ ...store, evals, assetsDir });
  context = await launchChromium(join(dir, "profile"), { width: 1280, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  // Sign in once: the token in the URL becomes the cookie every later page uses.
  await page.goto(server.url);
  await page.waitForSelector("tbody tr");
}, 180_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  await store?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The page's window, as far as these tests use it (callbacks run in the browser; no DOM types here). */
type Win = { getComputedStyle: (e: unknown) => { lineHeight: string; color: string } };

const origin = () => `http://127.0.0.1:${server.port}/`;
/** The title the app gives the page of `hash` (set when it draws the page, old content gone). */
function titleOf(hash: string): string {
  const [kind, id] = hash
    .replace(/^#\/?/, "")
    .split("/")
    .map((p) => decodeURIComponent(p));
  if (kind === "runs" && id) return `Run ${id} ·`;
  if (kind === "evals") return id ? `Eval ${id} ·` : "Evals ·";
  if (kind === "compare") return "Compare runs ·";
  if (kind === "dashboard") return "Dashboard ·";
  return "Runs ·";
}

/** Go to `hash` and wait until its page is drawn (a hash change keeps the document: the old page's
 * elements could otherwise satisfy `ready`). */
const open = async (hash: string, ready: string) => {
  await page.goto(`${origin()}${hash}`);
  await page.waitForFunction(`document.title.startsWith(${JSON.stringify(titleOf(hash))})`);
  await page.waitForSelector(ready);
};

/** Screenshots for docs/ui.md: the page at 1280 px and at 390 px (a phone). */
async function shots(name: string, ready: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForSelector(ready);
    await page.evaluate("window.scrollTo(0, 0)");
    // No horizontal scroll of the page itself (wide tables scroll in their own box).
    const overflow = await page.evaluate(
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    expect(overflow, `${name} at ${width} px overflows by ${overflow} px`).toBeLessThanOrEqual(1);
    await page.screenshot({ path: join(IMAGES, `inspector-${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe("figures that agree (issue 39 #1-#5)", () => {
  it("#1 an unpriced model's cost is unknown in the summary and in the usage table, never $0.000000", async () => {
    await open("#/runs/unpriced", ".cost-grid table");
    expect(await page.locator(".facts").textContent()).toContain("Costunknown");
    const costTable = (await page.locator(".cost-grid").textContent()) ?? "";
    expect(costTable).toContain("local-llm");
    expect(costTable).toContain("unknown");
    expect(costTable).not.toContain("$0.000000");
  });

  it("#2 compare: differences carry sign and unit; cost between two unknowns is unknown", async () => {
    await open("#/compare/unpriced/unpriced-2", "table.compare");
    const deltaOf = (measure: string) => page.locator(`tr[data-measure="${measure}"] td.delta`).textContent();
    expect(await deltaOf("Duration")).toMatch(/^\+\d+ ms$/);
    expect(await deltaOf("Model calls")).toBe("+3");
    expect(await deltaOf("Cost")).toBe("unknown");
    await open("#/compare/priced/..", "table.compare");
    expect(await deltaOf("Cost")).toBe("−$0.001160");
    await shots("compare", "table.compare");
  });

  it("#3 an approval row ends when decided; a resumed run keeps its first start and shows its pause", async () => {
    await open("#/runs/resumed", ".gantt-row");
    const approval = page.locator('.gantt-row[data-kind="approval"]');
    expect(await approval.getAttribute("class")).not.toContain("state-running");
    expect(await approval.textContent()).toContain("decided");
    expect(await page.locator('.gantt-row[data-kind="paused"]').textContent()).toContain("paused 1 min 0 s");
    const facts = (await page.locator(".facts").textContent()) ?? "";
    const first = new Date(RESUMED_T0);
    expect(facts).toContain(`${String(first.getHours()).padStart(2, "0")}:00:00`);
    expect(facts).toContain("Duration1 min 1 s");
    expect(facts).toContain("Paused1 min 0 s");
  });

  it("#4 TTFT only for streamed calls; an unknown run shows only the message; the capture note is true", async () => {
    await open("#/runs/resumed", ".gantt-row");
    // Its model call did not stream (no deltas): no TTFT.
    expect(await page.locator(".gantt").textContent()).not.toContain("TTFT");
    // Whole replies replayed as deltas at the end of each call: no TTFT either.
    await open("#/runs/unpriced-2", ".gantt-row");
    expect(await page.locator('.gantt-row[data-kind="model"]').count()).toBe(5);
    expect(await page.locator(".gantt").textContent()).not.toContain("TTFT");
    await open("#/runs/priced", ".gantt-row");
    expect(await page.locator(".gantt").textContent()).toContain("TTFT");
    const note = (await page.locator(".transcript .notice").textContent()) ?? "";
    expect(note).toContain("Content not captured");
    expect(note).not.toContain("Runs of the tinyagents CLI capture it");

    await open("#/runs/no-such-run", "#run-error");
    expect(await page.locator("#run-error").textContent()).toContain('no run "no-such-run"');
    expect(await page.locator("main h2").count()).toBe(0);
    expect(await page.locator("#compare-with").count()).toBe(0);
  });

  it("#5 at 1280 px a date stays on one line and a failed run's error takes one line in the list", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await open("#/", 'tr[data-run="failed"]');
    const lineHeight = await page
      .locator('tr[data-run="priced"] td.when')
      .evaluate(
        (td) => Number.parseFloat((globalThis as unknown as Win).getComputedStyle(td).lineHeight) || 20,
      );
    const dateHeight = await page.locator('tr[data-run="priced"] td.when').evaluate((td) => td.clientHeight);
    expect(dateHeight).toBeLessThan(lineHeight * 2 + 12);
    const errorHeight = await page
      .locator('tr[data-run="failed"] .error-line')
      .evaluate((d) => d.clientHeight);
    expect(errorHeight).toBeLessThan(lineHeight * 1.6);
    const rowHeight = await page.locator('tr[data-run="failed"]').evaluate((tr) => tr.clientHeight);
    expect(rowHeight).toBeLessThan(lineHeight * 4);
    // The run page has the whole message.
    await open("#/runs/failed", ".facts");
    expect(await page.locator(".facts").textContent()).toContain("at line 3");
  });
});

describe("evals in the inspector (issue 39 #6)", () => {
  it("eval trials are hidden from the runs list by default, one filter away", async () => {
    await open("#/", 'tr[data-run="priced"]');
    expect(await page.locator('tr[data-run^="ev-"]').count()).toBe(0);
    expect(await page.locator("#runs-count").textContent()).toContain("eval trials hidden");
    await page.locator("#run-evals").check();
    await expect.poll(() => page.locator('tr[data-run^="ev-"]').count()).toBe(8);
    await page.locator("#run-evals").uncheck();
    await shots("runs", 'tr[data-run="priced"]');
  });

  it("an eval page: cases × repeats, red/green verdicts, reasons, links to runs, baseline per trial", async () => {
    await open("#/evals", 'tr[data-eval="ev-2"]');
    await shots("evals", 'tr[data-eval="ev-2"]');
    await expectAccessible(page, "evals");
    await page.locator('tr[data-eval="ev-2"] a').click();
    await page.waitForSelector("table.eval-cases");
    const mul = page.locator('tr[data-case="mul"]');
    expect(await mul.locator(".trial-cell").count()).toBe(3);
    expect(await mul.locator(".trial-cell.fail .badge").textContent()).toBe("fail");
    const failColor = await mul
      .locator(".trial-cell.fail .badge")
      .evaluate((b) => (globalThis as unknown as Win).getComputedStyle(b).color);
    const passColor = await mul
      .locator(".trial-cell.pass .badge")
      .first()
      .evaluate((b) => (globalThis as unknown as Win).getComputedStyle(b).color);
    expect(failColor).not.toBe(passColor);
    expect(await mul.textContent()).toContain("expected 42, got 41");
    expect(await mul.locator(".trial-cell.fail a").getAttribute("href")).toBe("#/runs/ev-2-mul-2");
    // Baseline of 1 repeat against 3: the same cost per trial reads as no change.
    await page.selectOption("#baseline", "ev-1");
    await page.getByRole("button", { name: "Compare" }).click();
    await page.waitForSelector('tr[data-case="add"] .baseline-figure');
    const add = (await page.locator('tr[data-case="add"]').textContent()) ?? "";
    expect(add).toContain("baseline $0.000200 (±$0.000000)");
    expect(await page.locator("main").textContent()).toContain("this run 3 repeats, baseline 1");
    await shots("eval", "table.eval-cases");
    await expectAccessible(page, "eval");
  });
});

describe("the dashboard (issue 39 #7)", () => {
  it("runs, cost and tokens over time as SVG charts with tables; errors, tools, cache share; a filter", async () => {
    await open("#/dashboard", "svg.chart");
    expect(await page.locator("svg.chart").count()).toBe(3);
    const facts = (await page.locator(".dash-facts").textContent()) ?? "";
    // 7 runs + 8 eval trials in the window; unpriced models make the cost a lower bound.
    expect(facts).toContain("Runs15");
    expect(facts).toMatch(/Costunknown \(≥ \$0\.\d+\)/);
    expect(facts).toContain("Prompt-cache hit share");
    await page.locator("#chart-runs summary").click();
    const rows = await page.locator("#chart-runs tbody tr").allTextContents();
    expect(rows.length).toBeGreaterThan(1);
    expect(await page.locator("#dash-errors").textContent()).toContain("provider");
    expect(await page.locator("#dash-tools").textContent()).toContain("lookup");
    await page.locator("#chart-runs summary").click();
    await shots("dashboard", "svg.chart");
    await expectAccessible(page, "dashboard");
    await page.selectOption("#dash-status", "failed");
    // "failed" and the failing eval trial (ev-2-mul-2).
    await expect.poll(() => page.locator(".dash-facts").textContent()).toContain("Runs2");
    // A bar opens its runs: the first bucket with a failed run holds "failed" (18 h after T0; the
    // failing eval trial is a day later).
    await page.locator("#chart-runs summary").click();
    const bucket = page
      .locator("#chart-runs tbody tr")
      .filter({ has: page.locator("td:nth-child(2)", { hasText: /^1$/ }) });
    await bucket.first().locator("button").click();
    await page.waitForSelector("#runs-window");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    expect(await page.locator("tbody tr").getAttribute("data-run")).toBe("failed");
    await page.getByRole("button", { name: "Show all runs" }).click();
    await page.selectOption("#run-status", "all");
    await expect.poll(() => page.locator("tbody tr").count()).toBeGreaterThan(5);
    await open("#/dashboard", "svg.chart");
    await page.selectOption("#dash-status", "all");
  });
});

describe("safety and scale (issue 39 #8-#10)", () => {
  it("#8 a token on loopback: without it the inspector answers 401", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
    expect((await fetch(`${origin()}api/runs`)).status).toBe(401);
    expect((await fetch(origin())).status).toBe(401);
  });

  it("#9 a run whose id is `..` opens from the list", async () => {
    await open("#/", 'tr[data-run=".."]');
    await page.locator('tr[data-run=".."] a').first().click();
    await page.waitForSelector(".facts");
    expect(await page.locator("h1").textContent()).toBe("Run ..");
    expect(await page.locator("#run-error").count()).toBe(0);
  });

  it("#10 a 10,000-record run's page draws its first page fast and the rest on demand", async () => {
    // The machine is shared (2 cores, load up to 20 under the other suites): the measure is made
    // on up to 3 runs the server has not read yet, and the best must meet the bar.
    let best = Number.POSITIVE_INFINITY;
    for (const id of ["big", "big-2", "big-3"]) {
      if (best < 2000) break;
      await open("#/", 'tr[data-run="priced"]');
      const t = performance.now();
      await open(`#/runs/${id}`, ".gantt-row");
      const firstPaint = performance.now() - t;
      console.log(`inspector: 10,002-record run ${id} drawn in ${firstPaint.toFixed(0)} ms`);
      best = Math.min(best, firstPaint);
    }
    expect(best).toBeLessThan(2000);
    expect(await page.locator(".gantt-row").count()).toBe(100);
    const more = page.locator(".gantt button.more:not(.earlier)");
    const earlier = page.locator(".gantt button.earlier");
    expect(await more.textContent()).toContain("1–100 of 2,501 shown");
    expect(await earlier.isVisible()).toBe(false);
    // Read on (the button, or scrolling to it, loads the next page): the page keeps at most 500
    // rows; the earliest leave, and "Show earlier" brings them back.
    for (let i = 0; i < 10 && !(await earlier.isVisible()); i++) {
      await more.click();
      await expect.poll(async () => (await page.locator(".gantt-row").count()) <= 500).toBe(true);
    }
    expect(await earlier.isVisible()).toBe(true);
    expect(await page.locator(".gantt-row").count()).toBeLessThanOrEqual(500);
    const firstShown = async () =>
      Number(/\((\d[\d,]*)–/.exec((await earlier.textContent()) ?? "")?.[1]?.replace(",", ""));
    const before = await firstShown();
    expect(before).toBeGreaterThan(1);
    expect(await page.locator(".gantt-row").first().textContent()).not.toMatch(/^run\b/);
    await earlier.click();
    await expect.poll(firstShown).toBe(before - 100);
    expect(await page.locator(".gantt-row").count()).toBeLessThanOrEqual(500);
    await open("#/runs/resumed", ".gantt-row");
    await shots("run", '.gantt-row[data-kind="paused"]');
  });
});
