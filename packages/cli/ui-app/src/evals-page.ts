import type { EvalCaseView, EvalTrialView, EvalView } from "../../src/ui/view-types.js";
import { evalDetail, evalHref, listEvals, runHref } from "./api.js";
import { announce, h, replace } from "./dom.js";
import { cost, delta, duration, knownCost, percent, timestamp } from "./format.js";

const score = (n: number | null | undefined): string => (n === null || n === undefined ? "—" : n.toFixed(2));

/** The eval runs: name, dataset, when, pass rate; each opens its eval page. */
export function evalsPage(main: HTMLElement): () => void {
  const body = h("div", null, h("p", null, "Loading…"));
  replace(main, h("h1", { tabindex: -1 }, "Evals"), body);
  let stopped = false;
  listEvals()
    .then((rows) => {
      if (stopped) return;
      if (rows.length === 0) {
        replace(
          body,
          h(
            "p",
            null,
            "No eval runs in this store yet. Run one with ",
            h("code", null, "tinyagents eval <file>"),
            ".",
          ),
        );
        return;
      }
      replace(
        body,
        h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            { class: "evals" },
            h("caption", { class: "visually-hidden" }, "Eval runs, newest first"),
            h(
              "thead",
              null,
              h(
                "tr",
                null,
                ["Eval", "Dataset", "Started", "Status", "Trials", "Pass rate", "Verdict"].map((c) =>
                  h("th", { scope: "col" }, c),
                ),
              ),
            ),
            h(
              "tbody",
              null,
              rows.map((r) =>
                h(
                  "tr",
                  { "data-eval": r.evalRunId },
                  h(
                    "td",
                    null,
                    h("a", { href: evalHref(r.evalRunId) }, r.name),
                    h("div", { class: "muted small" }, r.evalRunId),
                  ),
                  h("td", null, r.dataset),
                  h("td", { class: "when" }, timestamp(r.startedAt)),
                  h("td", null, r.status),
                  h("td", { class: "num" }, r.trials),
                  h("td", { class: "num" }, percent(r.passRate ?? undefined)),
                  h("td", null, verdict(r.passed)),
                ),
              ),
            ),
          ),
        ),
      );
      announce(`${rows.length} eval runs loaded`);
    })
    .catch((e: Error) => replace(body, h("p", { class: "error-text", role: "alert" }, e.message)));
  return () => {
    stopped = true;
  };
}

/** Pass or fail, in words and color (never color alone). */
function verdict(passed: boolean): HTMLElement {
  return h("span", { class: `badge ${passed ? "pass" : "fail"}` }, passed ? "pass" : "fail");
}

/**
 * One eval run: cases × repeats, each trial's verdict (green pass, red fail), scores and the
 * scorers' reasons, with a link to the trial's run; per case the pass rate, scorer means and
 * cost per trial, beside a chosen baseline's (normalized by repeats, so 1 vs 3 repeats compare).
 */
export function evalPage(main: HTMLElement, evalRunId: string, baselineId?: string): () => void {
  const body = h("div", null, h("p", null, "Loading…"));
  const title = h("h1", { tabindex: -1 }, `Eval ${evalRunId}`);
  replace(main, h("p", null, h("a", { href: "#/evals" }, "← All evals")), title, body);
  let stopped = false;
  evalDetail(evalRunId, baselineId)
    .then((view) => {
      if (stopped) return;
      title.textContent = `Eval ${view.name}`;
      replace(body, facts(view), baselinePicker(view), casesTable(view));
      announce(`Eval ${view.name} loaded`);
    })
    .catch((e: Error) => replace(body, h("p", { class: "error-text", role: "alert" }, e.message)));
  return () => {
    stopped = true;
  };
}

function facts(v: EvalView): HTMLElement {
  const fact = (name: string, value: Node | string) => [h("dt", null, name), h("dd", null, value)];
  return h(
    "dl",
    { class: "facts" },
    fact("Verdict", verdict(v.passed)),
    fact("Eval run", v.evalRunId),
    fact(
      "Dataset",
      `${v.dataset} · ${v.cases.length} cases × ${v.repeats} repeat${v.repeats === 1 ? "" : "s"}`,
    ),
    fact("Started", timestamp(v.startedAt)),
    fact("Took", duration(v.endedAt - v.startedAt)),
    fact("Pass rate", percent(v.passRate ?? undefined)),
    fact("Cost", cost(v.cost)),
  );
}

function baselinePicker(v: EvalView): HTMLElement {
  if (v.sameDataset.length === 0)
    return h("p", { class: "muted" }, "No other eval run of this dataset to compare with.");
  const select = h(
    "select",
    { id: "baseline" },
    h("option", { value: "" }, "none"),
    v.sameDataset.map((o) =>
      h(
        "option",
        { value: o.evalRunId, selected: o.evalRunId === v.baseline?.evalRunId },
        `${o.name} · ${timestamp(o.startedAt)} · ${o.trials} trials · pass ${percent(o.passRate ?? undefined)}`,
      ),
    ),
  );
  return h(
    "div",
    { class: "row" },
    h("label", { for: "baseline" }, "Baseline"),
    select,
    h(
      "button",
      {
        type: "button",
        onclick: () => {
          location.hash = evalHref(v.evalRunId, select.value === "" ? undefined : select.value);
        },
      },
      "Compare",
    ),
    v.baseline === undefined
      ? null
      : h(
          "span",
          { class: "muted" },
          `per trial: this run ${v.repeats} repeat${v.repeats === 1 ? "" : "s"}, baseline ${v.baseline.repeats}`,
        ),
  );
}

function casesTable(v: EvalView): HTMLElement {
  const repeats = Math.max(v.repeats, ...v.cases.map((c) => c.trialViews.length));
  const head = [
    "Case",
    ...Array.from({ length: repeats }, (_, i) => `Trial ${i + 1}`),
    "Pass rate",
    ...v.scorers.map((s) => `${s} (mean)`),
    "Cost / trial",
  ];
  return h(
    "section",
    { "aria-labelledby": "cases-h" },
    h("h2", { id: "cases-h" }, "Cases"),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "eval-cases" },
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            head.map((c) => h("th", { scope: "col" }, c)),
          ),
        ),
        h(
          "tbody",
          null,
          v.cases.map((c) => caseRow(v, c, repeats)),
        ),
      ),
    ),
  );
}

function caseRow(v: EvalView, c: EvalCaseView, repeats: number): HTMLTableRowElement {
  const b = c.baseline;
  const versus = (now: string, diff: string | null) =>
    diff === null ? now : [now, h("div", { class: "muted small baseline-figure" }, `baseline ${diff}`)];
  return h(
    "tr",
    { "data-case": c.caseId },
    h("th", { scope: "row" }, c.caseId),
    Array.from({ length: repeats }, (_, i) => {
      const t = c.trialViews.find((x) => x.trial === i);
      return h("td", { class: "trial" }, t === undefined ? "—" : trialCell(t));
    }),
    h(
      "td",
      { class: "num" },
      versus(
        percent(c.passRate ?? undefined),
        b === undefined
          ? null
          : `${percent(b.passRate ?? undefined)} (${delta("count", pct(b.passRate), pct(c.passRate))} pts)`,
      ),
    ),
    v.scorers.map((s) =>
      h(
        "td",
        { class: "num" },
        versus(
          score(c.means[s]),
          b === undefined ? null : `${score(b.means[s])} (${signed(b.means[s], c.means[s])})`,
        ),
      ),
    ),
    h(
      "td",
      { class: "num" },
      versus(
        cost(c.costPerTrial),
        b === undefined
          ? null
          : `${cost(b.costPerTrial)} (${delta("usd", knownCost(b.costPerTrial), knownCost(c.costPerTrial))})`,
      ),
    ),
  );
}

const pct = (rate: number | null): number | undefined => (rate === null ? undefined : Math.round(rate * 100));
const signed = (a: number | null | undefined, b: number | null | undefined): string =>
  a === null || a === undefined || b === null || b === undefined
    ? "unknown"
    : `${b - a > 0 ? "+" : b - a < 0 ? "−" : "±"}${Math.abs(b - a).toFixed(2)}`;

function trialCell(t: EvalTrialView): HTMLElement {
  return h(
    "div",
    { class: `trial-cell ${t.passed ? "pass" : "fail"}` },
    h(
      "a",
      { href: runHref(t.runId), class: `badge ${t.passed ? "pass" : "fail"}` },
      t.passed ? "pass" : "fail",
    ),
    t.error === undefined
      ? null
      : h(
          "div",
          { class: "error-text error-line", title: t.error.message },
          `[${t.error.code}] ${t.error.message}`,
        ),
    t.scores.map((s) =>
      h(
        "div",
        { class: "score" },
        `${s.scorer} `,
        s.error === undefined
          ? h("strong", null, score(s.score))
          : h("span", { class: "error-text" }, `error [${s.error.code}]`),
        s.reason === undefined ? null : h("div", { class: "muted small reason" }, s.reason),
        s.error === undefined ? null : h("div", { class: "muted small reason" }, s.error.message),
      ),
    ),
  );
}
