import type { CacheCallView, CostRow } from "../../src/ui/view-types.js";
import { h } from "./dom.js";
import { cost, percent, tokensLong } from "./format.js";

/** Usage and cost by model and by sub-agent: a bar chart of tokens with the numbers beside it. */
export function costView(title: string, rows: readonly CostRow[]): HTMLElement {
  const max = Math.max(1, ...rows.map((r) => r.tokens.totalTokens));
  return h(
    "figure",
    { class: "cost-chart" },
    h("figcaption", null, title),
    rows.length === 0
      ? h("p", null, "No model calls.")
      : h(
          "table",
          null,
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              ["Name", "Calls", "Tokens", "Cost", "Share of tokens"].map((c) => h("th", { scope: "col" }, c)),
            ),
          ),
          h(
            "tbody",
            null,
            rows.map((r) => {
              const bar = h("span", { class: "hbar" });
              bar.style.width = `${(r.tokens.totalTokens / max) * 100}%`;
              return h(
                "tr",
                null,
                h("th", { scope: "row" }, r.key),
                h("td", { class: "num" }, r.calls),
                h(
                  "td",
                  null,
                  `${r.tokens.totalTokens} total`,
                  h("div", { class: "muted small" }, tokensLong(r.tokens)),
                ),
                h("td", { class: "num" }, cost(r.cost)),
                h("td", { class: "bar-cell", "aria-hidden": "true" }, bar),
              );
            }),
          ),
        ),
  );
}

/**
 * The prompt-cache view: per model call, the stable-prefix fingerprint, preserved or busted since
 * the previous call of its run (and by which declared layout change), and the cached-token share.
 */
export function cacheView(calls: readonly CacheCallView[]): HTMLElement {
  if (calls.length === 0) return h("p", null, "No completed model calls.");
  const fingerprints = calls.some((c) => c.fingerprint !== undefined);
  return h(
    "div",
    null,
    fingerprints
      ? null
      : h(
          "p",
          { class: "notice" },
          "No prefix fingerprints in this journal (they come with traceDetailsMiddleware): preserved/busted is known only where a middleware declared a layout change.",
        ),
    h(
      "table",
      { class: "cache" },
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          [
            "#",
            "Model",
            "Run",
            "Stable prefix",
            "Prefix",
            "Why",
            "Input tokens",
            "Cache read",
            "Cache write",
            "Cached share",
          ].map((c) => h("th", { scope: "col" }, c)),
        ),
      ),
      h(
        "tbody",
        null,
        calls.map((c, i) =>
          h(
            "tr",
            null,
            h("td", { class: "num" }, i + 1),
            h("td", null, c.model),
            h("td", null, c.runId),
            h(
              "td",
              null,
              c.fingerprint === undefined
                ? "—"
                : h("code", { title: c.fingerprint }, c.fingerprint.slice(0, 12)),
            ),
            h("td", null, h("span", { class: `badge prefix-${c.prefix}` }, c.prefix)),
            h(
              "td",
              null,
              c.changes.length === 0
                ? c.prefix === "busted"
                  ? "undeclared change"
                  : "—"
                : c.changes
                    .map((x) => `${x.middleware}${x.segment === undefined ? "" : ` (${x.segment})`}`)
                    .join(", "),
            ),
            h("td", { class: "num" }, c.inputTokens),
            h("td", { class: "num" }, c.cacheReadTokens),
            h("td", { class: "num" }, c.cacheWriteTokens),
            h("td", { class: "num" }, percent(c.cachedShare)),
          ),
        ),
      ),
    ),
  );
}
