import type { FigureKind } from "../../src/figures/figures.js";
import type { RunDetail, TranscriptEntry } from "../../src/ui/view-types.js";
import { compareRuns, runHref } from "./api.js";
import { diffLines } from "./diff.js";
import { announce, h, replace } from "./dom.js";
import { cost, count, delta, duration, json, knownCost } from "./format.js";

/** Two runs side by side: status, timing, calls, tokens and cost, then a transcript diff. */
export function comparePage(main: HTMLElement, a: string, b: string): () => void {
  const body = h("div", null, h("p", null, "Loading…"));
  replace(
    main,
    h("p", null, h("a", { href: "#/" }, "← All runs")),
    h("h1", { tabindex: -1 }, "Compare runs"),
    body,
  );
  let stopped = false;
  compareRuns(a, b)
    .then(({ a: left, b: right }) => {
      if (stopped) return;
      replace(body, metrics(left, right), transcriptDiff(left, right));
      announce("Comparison loaded");
    })
    .catch((e: Error) => replace(body, h("p", { class: "error-text", role: "alert" }, e.message)));
  return () => {
    stopped = true;
  };
}

type Measure = [
  name: string,
  show: (d: RunDetail) => string | number,
  value: ((d: RunDetail) => number | undefined) | null,
  kind: FigureKind,
];

/** The totals side by side; `B − A` carries its sign and unit, and is unknown when either side is. */
function metrics(a: RunDetail, b: RunDetail): HTMLElement {
  const rows: Measure[] = [
    ["Status", (d) => d.summary.status, null, "count"],
    ["Models", (d) => d.summary.models.join(", ") || "—", null, "count"],
    ["Duration", (d) => duration(d.summary.durationMs), (d) => d.summary.durationMs, "duration"],
    ["Model calls", (d) => count(d.summary.modelCalls), (d) => d.summary.modelCalls, "count"],
    ["Tool calls", (d) => count(d.summary.toolCalls), (d) => d.summary.toolCalls, "count"],
    [
      "Input tokens",
      (d) => count(d.summary.tokens.inputTokens),
      (d) => d.summary.tokens.inputTokens,
      "count",
    ],
    [
      "Output tokens",
      (d) => count(d.summary.tokens.outputTokens),
      (d) => d.summary.tokens.outputTokens,
      "count",
    ],
    [
      "Cache read tokens",
      (d) => count(d.summary.tokens.cacheReadTokens),
      (d) => d.summary.tokens.cacheReadTokens,
      "count",
    ],
    ["Cost", (d) => cost(d.summary.cost), (d) => knownCost(d.summary.cost), "usd"],
  ];
  return h(
    "section",
    { "aria-labelledby": "metrics-h" },
    h("h2", { id: "metrics-h" }, "Totals"),
    h(
      "table",
      { class: "compare" },
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h("th", { scope: "col" }, "Measure"),
          h("th", { scope: "col" }, h("a", { href: runHref(a.summary.runId) }, `A: ${a.summary.runId}`)),
          h("th", { scope: "col" }, h("a", { href: runHref(b.summary.runId) }, `B: ${b.summary.runId}`)),
          h("th", { scope: "col" }, "B − A"),
        ),
      ),
      h(
        "tbody",
        null,
        rows.map(([name, show, value, kind]) =>
          h(
            "tr",
            { "data-measure": name },
            h("th", { scope: "row" }, name),
            h("td", null, show(a)),
            h("td", null, show(b)),
            h("td", { class: "num delta" }, value === null ? "" : delta(kind, value(a), value(b))),
          ),
        ),
      ),
    ),
  );
}

/** One comparable line per transcript entry. */
export function entryLine(e: TranscriptEntry): string {
  const pad = "  ".repeat(e.depth);
  switch (e.kind) {
    case "message":
      return `${pad}${e.role}: ${e.text}`;
    case "tool_call":
      return `${pad}tool ${e.toolName} ${JSON.stringify(e.arguments)} → ${e.status}${e.result === undefined ? "" : `: ${e.result}`}`;
    case "structured":
      return `${pad}structured: ${json(e.value)}`;
    case "error":
      return `${pad}error in ${e.where}: [${e.error.code}] ${e.error.message}`;
    case "note":
      return `${pad}${e.text}`;
  }
}

function transcriptDiff(a: RunDetail, b: RunDetail): HTMLElement {
  const lines = diffLines(a.transcript.map(entryLine), b.transcript.map(entryLine));
  const changed = lines.filter((l) => l.op !== "same").length;
  return h(
    "section",
    { "aria-labelledby": "diff-h" },
    h("h2", { id: "diff-h" }, "Transcript diff"),
    h(
      "p",
      { class: "muted" },
      changed === 0
        ? "The transcripts are the same."
        : `${changed} line${changed === 1 ? "" : "s"} differ. − only in A, + only in B.`,
    ),
    h(
      "ol",
      { class: "diff" },
      lines.map((l) =>
        h(
          "li",
          { class: `diff-${l.op}` },
          h("span", { class: "diff-op" }, l.op === "same" ? " " : l.op === "added" ? "+" : "−"),
          h(
            "span",
            { class: "visually-hidden" },
            l.op === "same" ? "" : l.op === "added" ? "only in B: " : "only in A: ",
          ),
          h("pre", null, l.text),
        ),
      ),
    ),
  );
}
