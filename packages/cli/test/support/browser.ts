/**
 * The inspector's browser tests share this setup (integration tier): Debian's Chromium (no browser
 * download) driven by playwright-core, and the axe-core accessibility check.
 */
import { existsSync } from "node:fs";
import axe from "axe-core";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

/** The Chromium the tests drive: `TINYAGENTS_CHROMIUM`, else Debian's. */
export const CHROMIUM = process.env.TINYAGENTS_CHROMIUM ?? "/usr/bin/chromium";

/**
 * A headless Chromium with its profile in `profileDir` (a temp directory the test removes), no
 * sandbox, GPU, QUIC or background traffic, the viewport given. The page's CSP is bypassed so the
 * test can inject axe-core (the page's own escaping is what the XSS tests check, with or without
 * it). Throws, saying how to install it, when Chromium is missing.
 */
export async function launchChromium(
  profileDir: string,
  viewport: { width: number; height: number },
): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (.ci/ui-browser-deps does) or set TINYAGENTS_CHROMIUM`,
    );
  }
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport,
    bypassCSP: true,
  });
}

/** No serious or critical accessibility violation (axe-core) on the page; `name` says which page. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    // Runs in the page (no DOM types in this Node test program): axe.run() checks the document.
    const w = globalThis as unknown as { axe: typeof axe; document: axe.ElementContext };
    const r = await w.axe.run(w.document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => n.target.join(" ")),
    }));
  });
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious, `${name}: ${JSON.stringify(serious)}`).toEqual([]);
}
