import type { DashboardView } from "../../src/ui/view-types.js";
import { dashboard } from "./api.js";
import { barChart } from "./bar-chart.js";
import { announce, h, replace } from "./dom.js";
import { cost, count, duration, percent, timestamp } from "./format.js";
import { showRunsOf } from "./runs-page.js";

const WINDOWS: [string, number][] = [
  ["Last 24 hours", 24 * 3_600_000],
  ["Last 7 days", 7 * 24 * 3_600_000],
  ["Last 30 days", 30 * 24 * 3_600_000],
];

/** Filters kept across visits. */
const state = {
  windowMs: 7 * 24 * 3_600_000,
  agent: "all",
  model: "all",
  status: "all",
  tag: "all",
  thread: "all",
};

/**
 * "How did the agents do last week": for a time window and a filter (agent, model, status, tag,
 * thread) the
 * runs and failures, cost and tokens over time, errors by code, latency p50/p95 of runs and model
 * calls, tools by calls and failures, prompt-cache hit share and cost by model.
 */
export function dashboardPage(main: HTMLElement): () => void {
  const body = h("div", { id: "dashboard" }, h("p", null, "Loading…"));
  const filters = h("div", { class: "filters", role: "search" });
  replace(main, h("h1", { tabindex: -1 }, "Dashboard"), filters, body);
  let stopped = false;
  let view: DashboardView | undefined;

  const select = (
    id: string,
    label: string,
    value: string,
    options: [string, string][],
    set: (v: string) => void,
  ) => [
    h("label", { for: id }, label),
    h(
      "select",
      {
        id,
        onchange: (event: Event) => {
          set((event.target as HTMLSelectElement).value);
          void load();
        },
      },
      options.map(([v, text]) => h("option", { value: v, selected: v === value }, text)),
    ),
  ];

  function drawFilters(v: DashboardView | undefined): void {
    const all = (values: readonly string[]): [string, string][] => [
      ["all", "all"],
      ...values.map((x): [string, string] => [x, x]),
    ];
    replace(
      filters,
      select(
        "dash-window",
        "Window",
        String(state.windowMs),
        WINDOWS.map(([t, ms]) => [String(ms), t]),
        (x) => (state.windowMs = Number(x)),
      ),
      select("dash-agent", "Agent", state.agent, all(v?.agents ?? []), (x) => (state.agent = x)),
      select("dash-model", "Model", state.model, all(v?.models ?? []), (x) => (state.model = x)),
      select(
        "dash-status",
        "Status",
        state.status,
        all(["completed", "failed", "interrupted", "cancelled", "running"]),
        (x) => (state.status = x),
      ),
      select("dash-tag", "Tag", state.tag, all(v?.tags ?? []), (x) => (state.tag = x)),
      select("dash-thread", "Thread", state.thread, all(v?.threads ?? []), (x) => (state.thread = x)),
    );
  }

  async function load(): Promise<void> {
    const to = Date.now();
    try {
      view = await dashboard({
        from: to - state.windowMs,
        to,
        agent: state.agent,
        model: state.model,
        status: state.status,
        tag: state.tag,
        thread: state.thread,
      });
    } catch (e) {
      replace(body, h("p", { class: "error-text", role: "alert" }, (e as Error).message));
      return;
    }
    if (stopped) return;
    drawFilters(view);
    replace(body, ...render(view));
    announce(`Dashboard: ${view.runs} runs`);
  }
  drawFilters(undefined);
  void load();
  return () => {
    stopped = true;
  };
}

function render(v: DashboardView): HTMLElement[] {
  const day = v.bucketMs >= 24 * 3_600_000;
  const label = (ms: number) => (day ? timestamp(ms).slice(0, 10) : timestamp(ms).slice(0, 16));
  const fact = (name: string, value: string) => [h("dt", null, name), h("dd", null, value)];
  const failed = v.byStatus.failed ?? 0;
  return [
    h(
      "dl",
      { class: "facts dash-facts" },
      fact(
        "Runs",
        `${count(v.runs)}${v.capped ? " (the newest: more matched)" : ""}${v.journalRuns < v.runs ? ` (models, tools and call latency: the newest ${count(v.journalRuns)})` : ""}`,
      ),
      fact("Failed", `${count(failed)}${v.runs > 0 ? ` (${percent(failed / v.runs)})` : ""}`),
      fact("Cost", cost(v.cost)),
      fact("Tokens", `${count(v.tokens.total)} (${count(v.tokens.input)} in, ${count(v.tokens.output)} out)`),
      fact("Prompt-cache hit share", `${percent(v.cacheHitShare)} of input tokens read from cache`),
      fact(
        "Run latency",
        `p50 ${duration(v.latency.p50)} · p95 ${duration(v.latency.p95)} (${count(v.latency.count)} runs)`,
      ),
      fact(
        "Model call latency",
        `p50 ${duration(v.modelLatency.p50)} · p95 ${duration(v.modelLatency.p95)} (${count(v.modelLatency.count)} calls)`,
      ),
    ),
    h(
      "div",
      { class: "chart-grid" },
      barChart({
        id: "chart-runs",
        title: "Runs (failed in red; click a bar for its runs)",
        // A bar opens the runs list on that bucket's runs (with the dashboard's status filter).
        bars: v.buckets.map((b) => ({
          label: label(b.start),
          value: b.runs,
          part: b.failed,
          onclick: () => showRunsOf({ from: b.start, to: b.start + v.bucketMs }, v.query.status ?? "all"),
        })),
        columns: ["From", "Runs", "Failed"],
      }),
      barChart({
        id: "chart-cost",
        title: "Cost",
        bars: v.buckets.map((b) => ({ label: label(b.start), value: b.cost.total, text: cost(b.cost) })),
        columns: ["From", "Cost"],
      }),
      barChart({
        id: "chart-tokens",
        title: "Tokens",
        bars: v.buckets.map((b) => ({ label: label(b.start), value: b.tokens, text: count(b.tokens) })),
        columns: ["From", "Tokens"],
      }),
    ),
    table(
      "dash-errors",
      "Errors by code",
      ["Code", "Runs"],
      v.errorsByCode.map((e) => [e.code, count(e.count)]),
      v.errorsByCode.map((e) => e.count),
    ),
    table(
      "dash-tools",
      "Tools: calls and failures",
      ["Tool", "Calls", "Failures", "Failure share"],
      v.tools.map((t) => [
        t.tool,
        count(t.calls),
        count(t.failures),
        percent(t.calls === 0 ? undefined : t.failures / t.calls),
      ]),
      v.tools.map((t) => t.calls),
    ),
    table(
      "dash-models",
      "Cost by model",
      ["Model", "Calls", "Tokens", "Cost"],
      v.byModel.map((m) => [m.model, count(m.calls), count(m.tokens), cost(m.cost)]),
      v.byModel.map((m) => m.tokens),
    ),
  ];
}

/** A table with a bar per row (the bar is decoration: the numbers are in the cells). */
function table(id: string, title: string, head: string[], rows: string[][], sizes: number[]): HTMLElement {
  const max = Math.max(1, ...sizes);
  return h(
    "section",
    { "aria-labelledby": `${id}-h`, id },
    h("h2", { id: `${id}-h` }, title),
    rows.length === 0
      ? h("p", { class: "muted" }, "None in this window.")
      : h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            null,
            h(
              "thead",
              null,
              h(
                "tr",
                null,
                [...head, ""].map((c) => h("th", { scope: "col" }, c)),
              ),
            ),
            h(
              "tbody",
              null,
              rows.map((cells, i) => {
                const bar = h("span", { class: "hbar" });
                bar.style.width = `${((sizes[i] ?? 0) / max) * 100}%`;
                return h(
                  "tr",
                  null,
                  cells.map((c, j) =>
                    j === 0 ? h("th", { scope: "row" }, c) : h("td", { class: "num" }, c),
                  ),
                  h("td", { class: "bar-cell", "aria-hidden": "true" }, bar),
                );
              }),
            ),
          ),
        ),
  );
}
