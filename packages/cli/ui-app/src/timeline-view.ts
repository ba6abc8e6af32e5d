import type { DetailPage, SpanView } from "../../src/ui/view-types.js";
import { h } from "./dom.js";
import { duration } from "./format.js";
import { pagedList } from "./paged-list.js";

/**
 * The Gantt chart: one row per span (runs, sub-agents, model calls, tools, retries, fallbacks,
 * approvals, pauses), indented by depth, with a bar placed on the run's time axis. Each row is text first
 * (label, start, duration, TTFT, outcome) so it reads without the bars.
 */
export function timelineView(
  spans: readonly SpanView[],
  options: { total?: number; axisMs?: number; load?: (from: number) => Promise<DetailPage<SpanView>> } = {},
): HTMLElement {
  const count = options.total ?? spans.length;
  if (count === 0) return h("p", null, "No timeline: the journal has no observations yet.");
  // The axis spans the whole run, also when only its first page of rows is here.
  const total = Math.max(1, options.axisMs ?? 0, ...spans.map((s) => s.end));
  const list = h("ol", {
    class: "gantt-rows",
    "aria-label": `Timeline, ${count} spans over ${duration(total)}`,
  });
  const paged = pagedList({
    list,
    first: spans,
    total: count,
    load: options.load ?? (() => Promise.resolve({ items: [], from: spans.length, total: count })),
    item: (s) => row(s, total),
    noun: "timeline rows",
  });
  return h(
    "div",
    { class: "gantt" },
    h(
      "div",
      { class: "gantt-axis", "aria-hidden": "true" },
      h("span", null, "0"),
      h("span", null, duration(total / 2)),
      h("span", null, duration(total)),
    ),
    paged,
  );
}

function row(s: SpanView, total: number): HTMLLIElement {
  const bar = h("span", { class: `bar kind-${s.kind} state-${s.status}` });
  bar.style.left = `${(s.start / total) * 100}%`;
  bar.style.width = s.end > s.start ? `${Math.max(0.4, ((s.end - s.start) / total) * 100)}%` : "0.4%";
  let ttft: HTMLElement | null = null;
  if (s.ttftMs !== undefined && s.end > s.start) {
    ttft = h("span", { class: "ttft", title: `first token after ${duration(s.ttftMs)}` });
    ttft.style.left = `${((s.start + s.ttftMs) / total) * 100}%`;
  }
  const label = h(
    "span",
    { class: "gantt-label" },
    h("span", { class: `kind kind-${s.kind}` }, s.kind),
    " ",
    s.label,
  );
  label.style.paddingLeft = `${s.depth * 1.1}em`;
  const facts = [
    `at ${duration(s.start)}`,
    s.end > s.start ? `took ${duration(s.end - s.start)}` : null,
    s.ttftMs === undefined ? null : `TTFT ${duration(s.ttftMs)}`,
    s.status === "ok" ? null : s.status,
    s.detail ?? null,
  ].filter((x): x is string => x !== null);
  return h(
    "li",
    { class: `gantt-row state-${s.status}`, "data-kind": s.kind, tabindex: 0 },
    label,
    h("span", { class: "gantt-track", "aria-hidden": "true" }, bar, ttft),
    h("span", { class: "gantt-facts" }, facts.join(" · ")),
  );
}
