import type { RunListPage, RunSummary } from "../../src/ui/view-types.js";
import { compareHref, listRunsPage, runHref } from "./api.js";
import { announce, h, replace } from "./dom.js";
import { cost, duration, timestamp, tokens } from "./format.js";

/** Runs per page of the list. */
const PAGE = 100;

const STATUSES = ["all", "running", "completed", "failed", "interrupted", "cancelled", "pending"];

/** Filters kept across refreshes and visits. */
const state: {
  status: string;
  query: string;
  evals: boolean;
  selected: Set<string>;
  /** Only runs that started in this window (set by a click on a dashboard bar). */
  window?: { from: number; to: number } | undefined;
} = { status: "all", query: "", evals: false, selected: new Set<string>() };

/** Open the runs list on the runs of a time window (and a status): a dashboard bar's runs. */
export function showRunsOf(span: { from: number; to: number }, status: string): void {
  state.window = span;
  state.status = status;
  location.hash = "#/";
}

/** The runs list: filter by status, search, select two to compare; refreshes every 2 s (running runs move live). */
export function runsPage(main: HTMLElement): () => void {
  const table = h("div", { class: "table-wrap" });
  const count = h("p", { class: "muted", id: "runs-count" });
  const evalsNote = h("p", { class: "muted", id: "evals-note" });
  const moreBox = h("div");
  const windowNote =
    state.window === undefined
      ? h("p", { hidden: true })
      : h(
          "p",
          { id: "runs-window", class: "notice" },
          `Runs that started from ${timestamp(state.window.from)} to ${timestamp(state.window.to)} (from the dashboard). `,
          h(
            "button",
            {
              type: "button",
              onclick: () => {
                state.window = undefined;
                windowNote.hidden = true;
                void reload();
              },
            },
            "Show all runs",
          ),
        );
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
      void reload();
    },
  });
  const status = h(
    "select",
    {
      id: "run-status",
      onchange: (event: Event) => {
        state.status = (event.target as HTMLSelectElement).value;
        void reload();
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
      void reload();
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
    windowNote,
    count,
    evalsNote,
    table,
    moreBox,
  );
  let runs: RunSummary[] = [];
  let next: RunListPage["next"];
  let hidden = 0;
  let error: string | undefined;
  let stopped = false;
  let timer: number | undefined;

  const goCompare = () => {
    const [a, b] = [...state.selected];
    if (a !== undefined && b !== undefined) location.hash = compareHref(a, b);
  };

  function render(): void {
    const shown = runs;
    for (const id of state.selected) if (!runs.some((r) => r.runId === id)) state.selected.delete(id);
    compareButton.disabled = state.selected.size !== 2;
    replace(
      evalsNote,
      !state.evals && hidden > 0
        ? ["Eval trials are grouped by eval on the ", h("a", { href: "#/evals" }, "Evals"), " page."]
        : null,
    );
    count.textContent =
      error !== undefined
        ? `Could not load runs: ${error}`
        : `${shown.length} run${shown.length === 1 ? "" : "s"}${next === undefined ? "" : " (newest first; more below)"}${!state.evals && hidden > 0 ? ` · eval trials hidden (${hidden} of them here)` : ""}${state.selected.size > 0 ? ` · ${state.selected.size} selected (pick 2 to compare)` : ""}`;
    replace(
      moreBox,
      next === undefined
        ? null
        : h(
            "button",
            { type: "button", class: "more", id: "more-runs", onclick: () => void more() },
            "Show more runs",
          ),
    );
    const filtered = state.status !== "all" || state.query.trim() !== "" || hidden > 0;
    if (runs.length === 0 && error === undefined && filtered) {
      replace(table, h("p", null, "No run matches these filters."));
      return;
    }
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

  /** The query of the current filters, for a page after `after`. */
  const pageQuery = (limit: number, after?: RunListPage["next"]) => ({
    limit,
    status: state.status,
    evals: state.evals,
    q: state.query,
    ...(after === undefined ? {} : { after }),
    ...(state.window === undefined ? {} : { window: state.window }),
  });

  /** Fetch the first page again, as long as what is shown (at least {@link PAGE}). */
  async function reload(): Promise<void> {
    const generation = ++requests;
    try {
      const page = await listRunsPage(pageQuery(Math.min(1000, Math.max(PAGE, runs.length))));
      if (generation !== requests) return; // a newer request (the filters changed) wins
      const changed = JSON.stringify(page) !== JSON.stringify({ runs, next, hiddenEvalTrials: hidden });
      runs = page.runs;
      next = page.next;
      hidden = page.hiddenEvalTrials;
      error = undefined;
      if (changed) render();
    } catch (e) {
      error = (e as Error).message;
      render();
    }
  }

  /** The next page, appended. */
  async function more(): Promise<void> {
    if (next === undefined) return;
    const generation = ++requests;
    try {
      const page = await listRunsPage(pageQuery(PAGE, next));
      if (generation !== requests) return;
      runs = [...runs, ...page.runs];
      next = page.next;
      hidden += page.hiddenEvalTrials;
      render();
    } catch (e) {
      error = (e as Error).message;
      render();
    }
  }

  let requests = 0;
  async function refresh(): Promise<void> {
    await reload();
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
