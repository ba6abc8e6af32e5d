import type { RunDetailPage, SpanView, TranscriptEntry } from "../../src/ui/view-types.js";
import { act, compareHref, eventsUrl, listRunsPage, runDetail, runPart } from "./api.js";
import { cacheView, costView } from "./cost-view.js";
import { announce, h, replace } from "./dom.js";
import { cost, duration, timestamp, tokensLong } from "./format.js";
import { statusBadge } from "./runs-page.js";
import { timelineView } from "./timeline-view.js";
import { transcriptView } from "./transcript-view.js";

/**
 * One run: summary, actions (where this server's process controls the run), timeline, transcript,
 * usage and cost, prompt cache. While the run is active the page follows the journal over
 * Server-Sent Events and redraws as observations arrive.
 */
export function runPage(main: HTMLElement, runId: string): () => void {
  const title = h("h1", { tabindex: -1 }, `Run ${runId}`);
  const summary = h("section", { "aria-labelledby": "summary-h" });
  const actions = h("section", { "aria-labelledby": "actions-h", id: "actions" });
  const timeline = h("div");
  const transcript = h("div");
  const costs = h("div", { class: "cost-grid" });
  const cache = h("div");
  const live = h("p", { class: "live", id: "live-status" });
  const compare = h("div", { class: "compare-pick" });
  replace(
    main,
    h("p", null, h("a", { href: "#/" }, "← All runs")),
    title,
    live,
    summary,
    actions,
    section("timeline-h", "Timeline", timeline),
    section("transcript-h", "Transcript", transcript),
    section("cost-h", "Usage and cost", costs),
    section("cache-h", "Prompt cache", cache),
    section("compare-h", "Compare", compare),
  );
  let source: EventSource | undefined;
  let pending: number | undefined;
  let stopped = false;
  let detail: RunDetailPage | undefined;

  /** Loads the run; false when there is none (the page then shows only why). */
  async function load(): Promise<boolean> {
    try {
      detail = await runDetail(runId);
    } catch (e) {
      // No run (or no access): the message alone, not empty sections and a compare picker.
      replace(
        main,
        h("p", null, h("a", { href: "#/" }, "← All runs")),
        title,
        h("p", { class: "error-text", role: "alert", id: "run-error" }, (e as Error).message),
      );
      return false;
    }
    if (stopped) return false;
    render(detail);
    follow(detail);
    return true;
  }

  function render(d: RunDetailPage): void {
    const s = d.summary;
    const active = s.status === "running" || s.status === "pending";
    live.textContent = active ? "● Live: following the journal" : "";
    replace(
      summary,
      h("h2", { id: "summary-h", class: "visually-hidden" }, "Summary"),
      h(
        "dl",
        { class: "facts" },
        fact("Status", statusBadge(s.status, active)),
        fact("Root agent", s.rootAgent),
        fact("Models", s.models.join(", ") || "—"),
        fact("Started", timestamp(s.startedAt)),
        fact("Duration", active ? "running…" : duration(s.durationMs)),
        s.pausedMs === undefined ? null : fact("Paused", `${duration(s.pausedMs)} (waiting to resume)`),
        fact("Calls", `${s.modelCalls} model · ${s.toolCalls} tool`),
        fact("Tokens", tokensLong(s.tokens)),
        fact("Cost", cost(s.cost)),
        fact("Thread", s.threadId ?? "—"),
        fact("Tags", s.tags.join(", ") || "—"),
        s.error === undefined
          ? null
          : fact("Error", h("span", { class: "error-text" }, `[${s.error.code}] ${s.error.message}`)),
      ),
    );
    renderActions(d);
    replace(
      timeline,
      timelineView(d.spans, {
        total: d.totals.spans,
        ...(s.durationMs === undefined ? {} : { axisMs: s.durationMs }),
        load: (from) => runPart<SpanView>(runId, "spans", from),
      }),
    );
    replace(
      transcript,
      transcriptView(d.transcript, d.contentCapture, d.totals.transcript, (from) =>
        runPart<TranscriptEntry>(runId, "transcript", from),
      ),
    );
    replace(costs, costView("By model", d.byModel), costView("By agent (main and sub-agents)", d.bySubAgent));
    replace(
      cache,
      d.totals.cache > d.cache.length
        ? h("p", { class: "muted" }, `The first ${d.cache.length} of ${d.totals.cache} model calls.`)
        : null,
      cacheView(d.cache),
    );
  }

  function renderActions(d: RunDetailPage): void {
    const c = d.control;
    const status = h("p", { class: "muted", role: "status" });
    const run = (body: Record<string, string>, done: string) => async () => {
      status.textContent = "Sending…";
      try {
        await act(runId, body);
        status.textContent = done;
        announce(done);
        window.setTimeout(load, 300);
      } catch (e) {
        status.textContent = `Failed: ${(e as Error).message}`;
      }
    };
    const buttons = [
      c.canPause
        ? h("button", { type: "button", onclick: run({ action: "pause" }, "Pause requested") }, "Pause")
        : null,
      c.canResume && d.approvals.length === 0
        ? h("button", { type: "button", onclick: run({ action: "resume" }, "Resume requested") }, "Resume")
        : null,
      c.canCancel
        ? h(
            "button",
            { type: "button", class: "danger", onclick: run({ action: "cancel" }, "Cancel requested") },
            "Cancel run",
          )
        : null,
    ].filter((b) => b !== null);
    replace(
      actions,
      h("h2", { id: "actions-h" }, "Actions"),
      d.approvals.length === 0
        ? null
        : h(
            "ul",
            { class: "approvals" },
            d.approvals.map((a) => {
              const reason = h("input", {
                type: "text",
                id: `reason-${a.callId}`,
                value: "rejected in the inspector",
              });
              return h(
                "li",
                null,
                h("strong", null, `Pending approval: ${a.toolName}`),
                " ",
                h("code", null, a.approvalId),
                a.arguments === undefined
                  ? null
                  : h("pre", { class: "code" }, JSON.stringify(a.arguments, null, 2)),
                c.canDecide
                  ? h(
                      "div",
                      { class: "row" },
                      h(
                        "button",
                        {
                          type: "button",
                          onclick: run({ action: "approve", approvalId: a.approvalId }, "Approved"),
                        },
                        `Approve ${a.toolName}`,
                      ),
                      h("label", { for: `reason-${a.callId}` }, "Reason"),
                      reason,
                      h(
                        "button",
                        {
                          type: "button",
                          class: "danger",
                          onclick: () =>
                            void run(
                              {
                                action: "reject",
                                approvalId: a.approvalId,
                                reason: reason.value || "rejected",
                              },
                              "Rejected",
                            )(),
                        },
                        `Reject ${a.toolName}`,
                      ),
                    )
                  : null,
              );
            }),
          ),
      buttons.length > 0 ? h("div", { class: "row" }, buttons) : null,
      c.note === undefined ? null : h("p", { class: "notice" }, c.note),
      status,
    );
  }

  /** Follow an active run: each observation schedules a redraw (batched). */
  function follow(d: RunDetailPage): void {
    const active = d.summary.status === "running" || d.summary.status === "pending";
    if (!active || source !== undefined || stopped) return;
    source = new EventSource(eventsUrl(runId, d.nextOffset));
    source.addEventListener("observation", (event) => {
      const o = JSON.parse((event as MessageEvent<string>).data) as {
        depth: number;
        event: { type: string };
      };
      if (pending === undefined) pending = window.setTimeout(redraw, 250);
      if (
        o.depth === 0 &&
        (o.event.type === "run.completed" ||
          o.event.type === "run.failed" ||
          o.event.type === "run.interrupted")
      ) {
        source?.close();
        source = undefined;
        announce(`Run ${o.event.type.slice(4)}`);
      }
    });
  }

  async function redraw(): Promise<void> {
    pending = undefined;
    if (stopped) return;
    try {
      detail = await runDetail(runId);
      render(detail);
      if (source === undefined) follow(detail);
    } catch {
      // the next observation retries
    }
  }

  void load().then(async (found) => {
    if (!found) return;
    announce(`Run ${runId} loaded`);
    // The 50 newest runs (eval trials included) to compare with: one page, not the whole store.
    const others = (await listRunsPage({ limit: 50, status: "all", evals: true, q: "" })).runs.filter(
      (r) => r.runId !== runId,
    );
    const select = h(
      "select",
      { id: "compare-with" },
      others.map((r) =>
        h("option", { value: r.runId }, `${r.runId} · ${r.status} · ${timestamp(r.startedAt)}`),
      ),
    );
    replace(
      compare,
      others.length === 0
        ? h("p", null, "No other run to compare with.")
        : h(
            "div",
            { class: "row" },
            h("label", { for: "compare-with" }, "Compare with"),
            select,
            h(
              "button",
              { type: "button", onclick: () => (location.hash = compareHref(runId, select.value)) },
              "Compare",
            ),
          ),
    );
  });
  return () => {
    stopped = true;
    source?.close();
    window.clearTimeout(pending);
  };
}

function section(id: string, title: string, body: HTMLElement): HTMLElement {
  return h("section", { "aria-labelledby": id }, h("h2", { id }, title), body);
}

function fact(name: string, value: Node | string): HTMLElement[] {
  return [h("dt", null, name), h("dd", null, value)];
}
