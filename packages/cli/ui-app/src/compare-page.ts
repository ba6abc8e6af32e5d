import type { RunDetail, TranscriptEntry } from "../../src/ui/view-types.js";
import { compareRuns, runHref } from "./api.js";
import { diffLines } from "./diff.js";
import { announce, h, replace } from "./dom.js";
import { cost, duration, json } from "./format.js";

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

function metrics(a: RunDetail, b: RunDetail): HTMLElement {
  const rows: [string, (d: RunDetail) => string | number, ((d: RunDetail) => number) | null][] = [
    ["Status", (d) => d.summary.status, null],
    ["Models", (d) => d.summary.models.join(", ") || "—", null],
    ["Duration", (d) => duration(d.summary.durationMs), (d) => d.summary.durationMs ?? 0],
    ["Model calls", (d) => d.summary.modelCalls, (d) => d.summary.modelCalls],
    ["Tool calls", (d) => d.summary.toolCalls, (d) => d.summary.toolCalls],
    ["Input tokens", (d) => d.summary.tokens.inputTokens, (d) => d.summary.tokens.inputTokens],
    ["Output tokens", (d) => d.summary.tokens.outputTokens, (d) => d.summary.tokens.outputTokens],
    ["Cache read tokens", (d) => d.summary.tokens.cacheReadTokens, (d) => d.summary.tokens.cacheReadTokens],
    ["Cost", (d) => cost(d.summary.cost), (d) => d.summary.cost.total],
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
        rows.map(([name, show, num]) => {
          const delta = num === null ? "" : num(b) - num(a);
          return h(
            "tr",
            null,
            h("th", { scope: "row" }, name),
            h("td", null, show(a)),
            h("td", null, show(b)),
            h(
              "td",
              { class: "num" },
              typeof delta === "number" ? (delta > 0 ? `+${round(delta)}` : round(delta)) : "",
            ),
          );
        }),
      ),
    ),
  );
}

const round = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(6));

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
