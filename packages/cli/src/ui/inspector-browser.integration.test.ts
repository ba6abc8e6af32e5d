/**
 * The inspector in a real browser: Debian's Chromium (no browser download) driven by
 * playwright-core, over a store journaled by real runs (see inspector.fixture.ts) and the demo.
 * Walks the journeys of issue 22 and writes screenshots to artifacts/ui/ (git-ignored; CI keeps them).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp } from "../../../../scripts/build/bundle-web-app.mjs";
import { expectAccessible, launchChromium } from "../../test/support/browser.js";
import { runDemo } from "../commands/run-demo.js";
import { type CliStore, openCliStore } from "../core/cli-store.js";
import { type RecordedRuns, recordRuns, XSS_PAYLOAD } from "./inspector.fixture.js";
import { type InspectorServer, serveInspector } from "./inspector-server.js";

const ARTIFACTS = join(import.meta.dirname, "../../../../artifacts/ui");

let dir: string;
let store: CliStore;
let runs: RecordedRuns;
let server: InspectorServer;
let context: BrowserContext;
let page: Page;
let demoRunId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "inspector-browser-"));
  mkdirSync(ARTIFACTS, { recursive: true });
  const assetsDir = join(dir, "assets");
  await buildWebApp(join(import.meta.dirname, "../../ui-app"), assetsDir);
  store = await openCliStore(join(dir, "t.db"));
  let demoOut = "";
  await runDemo(undefined, { write: (s: string) => (demoOut += s) }, { delayMs: 2, store });
  demoRunId = /tinyagents show (\S+)/.exec(demoOut)?.[1] ?? "";
  runs = await recordRuns(store);
  server = await serveInspector({
    ...store,
    describeRun: async (runId) => {
      const record = await store.getRun(runId);
      return record === undefined
        ? undefined
        : { prompt: record.prompt, rootAgent: `cli:${record.command}`, tags: [`cli:${record.command}`] };
    },
    controls: runs.controls,
    assetsDir,
    pollMs: 100,
  });
  context = await launchChromium(join(dir, "profile"), { width: 1360, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(30_000);
}, 180_000);

afterAll(async () => {
  runs?.releaseLive();
  runs?.releaseSteered();
  await runs?.settled();
  await context?.close();
  await server?.close();
  store?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}, 60_000);

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

describe("tinyagents ui in Chromium", () => {
  it("runs list → run page: timeline, transcript, cost, by keyboard", async () => {
    await page.goto(server.url);
    await expect.poll(() => page.locator("tbody tr").count()).toBe(8);
    expect(await page.locator(`tr[data-run="${runs.ids.failure}"] .badge`).textContent()).toBe("failed");
    expect(await page.locator(`tr[data-run="${runs.ids.tools}"]`).textContent()).toContain("$0.00");
    expect(await page.locator(`tr[data-run="${runs.ids.failure}"]`).textContent()).toContain("unknown");
    await shot("runs-list");
    await expectAccessible(page, "runs list");

    // Filter and search.
    await page.selectOption("#run-status", "failed");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    await page.selectOption("#run-status", "all");
    await page.fill("#run-search", "backup");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    await page.fill("#run-search", "");

    // Keyboard: focus the run's link, Enter opens it, focus lands on the heading.
    await page.locator(`a[href="#/runs/${runs.ids.tools}"]`).focus();
    await page.keyboard.press("Enter");
    await page.waitForSelector("h2#timeline-h");
    expect(await page.evaluate("document.activeElement?.tagName")).toBe("H1");
    const kinds = await page
      .locator(".gantt-row")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-kind")));
    expect(kinds).toContain("subagent");
    expect(kinds.filter((k) => k === "model")).toHaveLength(5);
    expect(await page.locator(".gantt-facts").first().textContent()).toContain("took");
    expect(await page.locator(".gantt").textContent()).toContain("TTFT");
    const transcript = await page.locator(".transcript").textContent();
    expect(transcript).toContain("What is (19 + 23) * 2? Check it.");
    expect(transcript).toContain("tool call research_agent");
    expect(transcript).toContain("structured output");
    const cost = await page.locator(".cost-grid").textContent();
    expect(cost).toContain("main-model");
    expect(cost).toContain("research-model");
    expect(cost).toContain("research");
    await expectAccessible(page, "run page");
    await shot("run-page");
  });

  it("a hostile tool result is shown as text, never run", async () => {
    await page.goto(`${server.url}#/runs/${runs.ids.tools}`);
    await page.waitForSelector(".tool-result");
    const results = await page.locator(".tool-result").allTextContents();
    expect(results).toContain(XSS_PAYLOAD);
    expect(await page.evaluate("window.__xss")).toBeUndefined();
    expect(await page.locator("main img, main script").count()).toBe(0);
  });

  it("retries, fallbacks and failures show in the timeline and transcript with their codes", async () => {
    await page.goto(`${server.url}#/runs/${runs.ids.fallback}`);
    await page.waitForSelector(".gantt-row");
    const kinds = await page
      .locator(".gantt-row")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-kind")));
    expect(kinds).toEqual(["run", "model", "retry", "model", "fallback", "model"]);
    expect(await page.locator(".transcript").textContent()).toContain("primary is down");
    await page.goto(`${server.url}#/runs/${runs.ids.failure}`);
    await page.waitForSelector(".entry-error");
    expect(await page.locator(".entry-error").first().textContent()).toContain("provider");
    expect(await page.locator(".facts").textContent()).toContain("[provider] invalid request: bad schema");
  });

  it("the prompt-cache view shows which middleware busted the prefix", async () => {
    await page.goto(`${server.url}#/runs/${runs.ids.cacheBust}`);
    await page.waitForSelector("table.cache");
    const rows = await page.locator("table.cache tbody tr").allTextContents();
    expect(rows[0]).toContain("first");
    expect(rows[1]).toContain("busted");
    expect(rows[1]).toContain("rotating_date (system)");
    expect(rows[1]).toContain("90%");
  });

  it("a running run updates live", async () => {
    await page.goto(`${server.url}#/runs/${runs.ids.live}`);
    await page.waitForSelector("#live-status");
    await expect.poll(() => page.locator("#live-status").textContent()).toContain("Live");
    expect(await page.locator(".facts .badge").textContent()).toContain("running");
    await shot("run-live");
    runs.releaseLive();
    await expect
      .poll(() => page.locator(".facts .badge").textContent(), { timeout: 30_000 })
      .toBe("completed");
    expect(await page.locator(".transcript").textContent()).toContain("The signal came.");
  });

  it("approving a pending approval resumes the run, which finishes", async () => {
    await page.goto(`${server.url}#/runs/${runs.ids.approval}`);
    await page.waitForSelector(".approvals");
    expect(await page.locator(".approvals").textContent()).toContain("Pending approval: transfer");
    await expectAccessible(page, "approval");
    await shot("run-approval");
    await page.getByRole("button", { name: "Approve transfer" }).click();
    await expect.poll(() => page.locator("#actions [role=status]").textContent()).toContain("Approved");
    await page.reload();
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.waitForSelector(".facts .badge");
          return page.locator(".facts .badge").textContent();
        },
        { timeout: 30_000 },
      )
      .toBe("completed");
    expect(await page.locator(".transcript").textContent()).toContain("sent $100");
  });

  it("a listening run offers Pause and Cancel; Pause is sent to its steering handle", async () => {
    await page.goto(`${server.url}#/runs/${runs.ids.steered}`);
    await page.waitForSelector("#actions button");
    expect(await page.locator("#actions button").allTextContents()).toEqual(["Pause", "Cancel run"]);
    await page.getByRole("button", { name: "Pause" }).click();
    await expect
      .poll(() => page.locator("#actions [role=status]").textContent())
      .toContain("Pause requested");
    runs.releaseSteered();
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.waitForSelector(".facts .badge");
          return page.locator(".facts .badge").textContent();
        },
        { timeout: 30_000 },
      )
      .toBe("interrupted");
    expect(await page.locator("#actions button").allTextContents()).toEqual(["Resume"]);
  });

  it("a run whose process does not listen says so instead of offering actions", async () => {
    await page.goto(`${server.url}#/runs/${runs.ids.tools}`);
    await page.waitForSelector("#actions .notice");
    expect(await page.locator("#actions .notice").textContent()).toContain("does not listen");
    expect(await page.locator("#actions button").count()).toBe(0);
  });

  it("compares two runs side by side", async () => {
    await page.goto(server.url);
    await page.waitForSelector(`tr[data-run="${runs.ids.tools}"]`);
    await page.getByLabel(`Select run ${runs.ids.tools} to compare`).check();
    await page.getByLabel(`Select run ${runs.ids.cacheBust} to compare`).check();
    await page.getByRole("button", { name: "Compare selected" }).click();
    await page.waitForSelector("table.compare");
    expect(await page.locator("table.compare").textContent()).toContain("Model calls");
    expect(await page.locator(".diff-added").count()).toBeGreaterThan(0);
    expect(await page.locator(".diff-removed").count()).toBeGreaterThan(0);
    await expectAccessible(page, "compare");
    await shot("compare");
  });

  it("shows the demo run (what `npm start` journals)", async () => {
    expect(demoRunId).not.toBe("");
    await page.goto(`${server.url}#/runs/${demoRunId}`);
    await page.waitForSelector(".gantt-row");
    expect(await page.locator(".facts").textContent()).toContain("cli:demo");
    expect(await page.locator(".transcript").textContent()).toContain("research");
    await shot("demo-run");
    // The picture in docs/ui.md and the README: the top of the demo run's page.
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({
      path: join(ARTIFACTS, "demo-run-top.png"),
      clip: { x: 0, y: 0, width: 1360, height: 1000 },
    });
  });
});
