import type { RunSummary } from "../../src/ui/view-types.js";
import { compareHref, listRuns, runHref } from "./api.js";
import { announce, h, replace } from "./dom.js";
import { cost, duration, timestamp, tokens } from "./format.js";

const STATUSES = ["all", "running", "completed", "failed", "interrupted", "cancelled", "pending"];

/** Filters kept across refreshes and visits. */
const state = { status: "all", query: "", evals: false, selected: new Set<string>() };

/** An eval's trial run (evaluate() tags each with `eval` and `eval:<eval run id>`). */
export const isEvalTrial = (r: RunSummary): boolean => r.tags.includes("eval");

/** The runs list: filter by status, search, select two to compare; refreshes every 2 s (running runs move live). */
export function runsPage(main: HTMLElement): () => void {
  const table = h("div", { class: "table-wrap" });
  const count = h("p", { class: "muted", id: "runs-count" });
  const evalsNote = h("p", { class: "muted", id: "evals-note" });
  const compareButton = h(
    "button",
    { type: "button", disabled: true, onclick: () => goCompare() },
    "Compare selected",
  );
  const search = h("input", {
    id: "run-search",
    type: "search",
    value: state.query,
    placeholder: "run id, prompt, model, thread, tag",
    oninput: (event: Event) => {
      state.query = (event.target as HTMLInputElement).value;
      render();
    },
  });
  const status = h(
    "select",
    {
      id: "run-status",
      onchange: (event: Event) => {
        state.status = (event.target as HTMLSelectElement).value;
        render();
      },
    },
    STATUSES.map((s) => h("option", { value: s, selected: s === state.status }, s)),
  );
  const evalToggle = h("input", {
    id: "run-evals",
    type: "checkbox",
    checked: state.evals,
    onchange: (event: Event) => {
      state.evals = (event.target as HTMLInputElement).checked;
      render();
    },
  });
  replace(
    main,
    h("h1", { tabindex: -1 }, "Runs"),
    h(
      "div",
      { class: "filters", role: "search" },
      h("label", { for: "run-search" }, "Search"),
      search,
      h("label", { for: "run-status" }, "Status"),
      status,
      h("label", { class: "check" }, evalToggle, "Show eval trials"),
      compareButton,
    ),
    count,
    evalsNote,
    table,
  );
  let runs: RunSummary[] = [];
  let error: string | undefined;
  let stopped = false;
  let timer: number | undefined;

  const goCompare = () => {
    const [a, b] = [...state.selected];
    if (a !== undefined && b !== undefined) location.hash = compareHref(a, b);
  };

  function render(): void {
    const q = state.query.trim().toLowerCase();
    const evalTrials = runs.filter(isEvalTrial).length;
    const shown = runs.filter(
      (r) =>
        (state.evals || !isEvalTrial(r)) &&
        (state.status === "all" || r.status === state.status) &&
        (q === "" ||
          [r.runId, r.prompt ?? "", r.threadId ?? "", r.rootAgent, ...r.models, ...r.tags].some((x) =>
            x.toLowerCase().includes(q),
          )),
    );
    for (const id of state.selected) if (!runs.some((r) => r.runId === id)) state.selected.delete(id);
    compareButton.disabled = state.selected.size !== 2;
    replace(
      evalsNote,
      !state.evals && evalTrials > 0
        ? ["Eval trials are grouped by eval on the ", h("a", { href: "#/evals" }, "Evals"), " page."]
        : null,
    );
    count.textContent =
      error !== undefined
        ? `Could not load runs: ${error}`
        : `${shown.length} of ${runs.length} run${runs.length === 1 ? "" : "s"}${!state.evals && evalTrials > 0 ? ` · ${evalTrials} eval trial${evalTrials === 1 ? "" : "s"} hidden` : ""}${state.selected.size > 0 ? ` · ${state.selected.size} selected (pick 2 to compare)` : ""}`;
    if (runs.length === 0 && error === undefined) {
      replace(
        table,
        h(
          "p",
          null,
          "No runs recorded yet. Try: ",
          h("code", null, "npm start"),
          " (the demo journals its run).",
        ),
      );
      return;
    }
    replace(
      table,
      h(
        "table",
        { class: "runs" },
        h("caption", { class: "visually-hidden" }, "Recorded runs, newest first"),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            [
              "Compare",
              "Status",
              "Run",
              "Root agent",
              "Models",
              "Started",
              "Duration",
              "Tokens",
              "Cost",
              "Thread",
              "Tags",
            ].map((c) => h("th", { scope: "col" }, c)),
          ),
        ),
        h("tbody", null, shown.map(row)),
      ),
    );
  }

  function row(r: RunSummary): HTMLTableRowElement {
    const live = r.status === "running" || r.status === "pending";
    return h(
      "tr",
      { "data-run": r.runId },
      h(
        "td",
        null,
        h("input", {
          type: "checkbox",
          "aria-label": `Select run ${r.runId} to compare`,
          checked: state.selected.has(r.runId),
          onchange: (event: Event) => {
            if ((event.target as HTMLInputElement).checked) state.selected.add(r.runId);
            else state.selected.delete(r.runId);
            render();
          },
        }),
      ),
      h("td", null, statusBadge(r.status, live)),
      h(
        "td",
        null,
        h("a", { href: runHref(r.runId) }, r.runId),
        r.prompt === undefined ? null : h("div", { class: "muted prompt" }, r.prompt.slice(0, 90)),
        r.error === undefined
          ? null
          : h(
              "div",
              { class: "error-text error-line", title: `[${r.error.code}] ${r.error.message}` },
              `[${r.error.code}] ${r.error.message.split("\n")[0]}`,
            ),
      ),
      h("td", null, r.rootAgent),
      h("td", null, r.models.join(", ") || "—"),
      h("td", { class: "when" }, timestamp(r.startedAt)),
      h("td", null, live ? "running…" : duration(r.durationMs)),
      h("td", { class: "num" }, tokens(r.tokens)),
      h("td", { class: "num" }, cost(r.cost)),
      h("td", null, r.threadId ?? "—"),
      h(
        "td",
        null,
        r.tags.map((t) => h("span", { class: "tag" }, t)),
      ),
    );
  }

  async function refresh(): Promise<void> {
    try {
      const next = await listRuns();
      const changed = JSON.stringify(next) !== JSON.stringify(runs);
      runs = next;
      error = undefined;
      if (changed) render();
    } catch (e) {
      error = (e as Error).message;
      render();
    }
    if (!stopped) timer = window.setTimeout(refresh, 2000);
  }
  void refresh().then(() => announce(`${runs.length} runs loaded`));
  return () => {
    stopped = true;
    window.clearTimeout(timer);
  };
}

/** A status as text (never color alone). */
export function statusBadge(status: string, live = false): HTMLElement {
  return h("span", { class: `badge status-${status}` }, live ? `● ${status}` : status);
}
