#!/usr/bin/env node
// Regenerates packages/harness/src/cost/pricing-catalog-data.ts from @pydantic/genai-prices
// (MIT, maintained by Pydantic, updated weekly; a devDependency of this script only — the
// runtime reads the committed file). Run: node scripts/refresh-pricing.mjs [--check]
//
// For each provider our adapters report (openai, anthropic, google, deepseek, groq, xai,
// mistral, together) it writes one row per model id and per exact alias the source matches
// (`equals` / `starts_with` values), with the price in force today: time-dated price lists take
// the latest start date not in the future (a dearer time-of-day window wins), tiered prices their
// base tier (short context).
// Prices are USD per million tokens: input, output, cache read, cache write (5-minute write
// for Anthropic). The catalog date (`asOf`) is the publish date of the package version used,
// so a stale catalog shows its age in every cost record.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findProvider } from "@pydantic/genai-prices";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const target = join(root, "packages/harness/src/cost/pricing-catalog-data.ts");
/** Our provider name -> the source's provider id. */
const PROVIDERS = {
  openai: "openai",
  anthropic: "anthropic",
  google: "google",
  deepseek: "deepseek",
  groq: "groq",
  xai: "x-ai",
  mistral: "mistral",
  together: "together",
};

const require = createRequire(import.meta.url);
const pkg = JSON.parse(
  readFileSync(join(dirname(require.resolve("@pydantic/genai-prices")), "..", "package.json"), "utf8"),
);

function publishDate(version) {
  try {
    const times = JSON.parse(
      execFileSync("npm", ["view", `@pydantic/genai-prices@${version}`, "time", "--json"], {
        encoding: "utf8",
        timeout: 60_000,
      }),
    );
    const stamp = times[version];
    if (typeof stamp === "string") return stamp.slice(0, 10);
  } catch {
    // Offline: fall back to today (the data is at least as old as the installed package).
  }
  return new Date().toISOString().slice(0, 10);
}

const today = new Date().toISOString().slice(0, 10);

/**
 * The list price in force today: the latest start date not in the future; a time-of-day window
 * (DeepSeek's peak hours) wins when it is dearer, so a cost is never under-reported.
 */
function currentPrices(prices) {
  if (!Array.isArray(prices)) return prices;
  let best;
  let bestStart = "";
  const windows = [];
  for (const entry of prices) {
    const c = entry.constraint;
    if (c !== undefined && c.type === "time_of_date") {
      windows.push(entry.prices);
      continue;
    }
    if (c !== undefined && c.type !== "start_date") continue;
    const start = c?.start_date ?? "";
    if (start > today) continue;
    if (best === undefined || start >= bestStart) {
      best = entry.prices;
      bestStart = start;
    }
  }
  for (const window of windows) {
    if (best === undefined || (base(window.input_mtok) ?? 0) > (base(best.input_mtok) ?? 0)) best = window;
  }
  return best;
}

function base(value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") return value;
  if (typeof value.base === "number") return value.base;
  return undefined;
}

function aliases(match, out) {
  if (match === undefined || match === null) return out;
  if (typeof match.equals === "string") out.add(match.equals);
  if (typeof match.starts_with === "string") out.add(match.starts_with);
  for (const inner of match.or ?? []) aliases(inner, out);
  // `and` narrows a pattern (exclusions): only its first positive part names the model.
  if (Array.isArray(match.and) && match.and.length > 0) aliases(match.and[0], out);
  return out;
}

const rows = [];
for (const [ours, theirs] of Object.entries(PROVIDERS)) {
  const provider = findProvider({ providerId: theirs });
  if (provider === undefined) throw new Error(`@pydantic/genai-prices has no provider "${theirs}"`);
  const seen = new Set();
  for (const model of provider.models) {
    if (model.deprecated === true) continue;
    const prices = currentPrices(model.prices);
    if (prices === undefined) continue;
    const input = base(prices.input_mtok);
    const output = base(prices.output_mtok);
    if (input === undefined || output === undefined) continue;
    const cacheRead = base(prices.cache_read_mtok);
    const cacheWrite = base(prices.cache_write_mtok);
    for (const id of aliases(model.match, new Set([model.id]))) {
      const key = id.toLowerCase();
      if (seen.has(key) || key === "") continue;
      seen.add(key);
      rows.push([ours, id, input, output, cacheRead ?? null, cacheWrite ?? null]);
    }
  }
}
rows.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1));

const check = process.argv.includes("--check");
// --check compares everything but the date, and needs no network.
const asOf = check ? "" : publishDate(pkg.version);
const body = `// Generated by scripts/refresh-pricing.mjs from @pydantic/genai-prices ${pkg.version}. Do not edit:
// run \`node scripts/refresh-pricing.mjs\` to refresh it.

/** The date of the price data below (the publish date of the source package version). */
export const PRICING_DATA_AS_OF = "${asOf}";

/** Where the prices come from. */
export const PRICING_DATA_SOURCE = "@pydantic/genai-prices@${pkg.version}";

/**
 * One row per model id: provider, model id, then USD per million tokens for input, output,
 * cache read and cache write (\`null\`: not listed, so the input price applies).
 */
export type PricingRow = readonly [string, string, number, number, number | null, number | null];

/** The generated rows (${rows.length}), sorted by provider and model id. */
export const PRICING_DATA: readonly PricingRow[] = [
${rows.map((row) => `  [${row.map((cell) => JSON.stringify(cell)).join(", ")}],`).join("\n")}
];
`;

if (check) {
  const current = readFileSync(target, "utf8");
  const strip = (text) => text.replace(/PRICING_DATA_AS_OF = "[^"]*"/, "");
  if (strip(current) !== strip(body)) {
    console.error(
      `${target} differs from what @pydantic/genai-prices ${pkg.version} gives; run node scripts/refresh-pricing.mjs`,
    );
    process.exit(1);
  }
  console.log(`pricing catalog is current (${rows.length} rows, @pydantic/genai-prices ${pkg.version})`);
} else {
  writeFileSync(target, body);
  console.log(
    `wrote ${rows.length} rows to ${target} (as of ${asOf}, @pydantic/genai-prices ${pkg.version})`,
  );
}
