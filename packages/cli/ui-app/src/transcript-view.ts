import type { ContentCapture, DetailPage, TranscriptEntry } from "../../src/ui/view-types.js";
import { append, h } from "./dom.js";
import { json } from "./format.js";
import { pagedList } from "./paged-list.js";

/**
 * The transcript: messages, tool calls with arguments and results, structured output and errors
 * with their codes, indented by sub-agent depth. All of it text nodes (see dom.ts).
 */
export function transcriptView(
  entries: readonly TranscriptEntry[],
  capture: ContentCapture,
  total: number = entries.length,
  load?: (from: number) => Promise<DetailPage<TranscriptEntry>>,
): HTMLElement {
  const off = capture === "turned_off";
  const notice = capture === "captured" ? null : h("p", { class: "notice" }, NOTICE[capture]);
  if (total === 0) return h("div", { class: "transcript" }, notice, h("p", null, "Nothing yet."));
  const list = h("ol", { class: "entries" });
  const paged = pagedList({
    list,
    first: entries,
    total,
    load: load ?? (() => Promise.resolve({ items: [], from: entries.length, total })),
    item: (e) => entry(e, off),
    noun: "transcript entries",
  });
  return h("div", { class: "transcript" }, notice, paged);
}

const NOTICE: Record<Exclude<ContentCapture, "captured">, string> = {
  not_captured:
    "Content not captured for this run: its journal has no prompt, full answers or tool results, only tool " +
    "arguments, streamed text and outcomes (shown below). Content is journaled when the run has " +
    "traceDetailsMiddleware({ captureContent: true }) registered.",
  turned_off:
    "Content not captured: content capture was turned off for this run (--no-capture-content or " +
    "TINYAGENTS_CAPTURE_CONTENT=0). The journal holds no prompt, answers, tool arguments or tool results — " +
    "only the run's steps, timing, usage, cost and errors.",
};

/** One transcript entry; `off`: content capture was turned off (tool arguments were not kept). */
function entry(e: TranscriptEntry, off: boolean): HTMLLIElement {
  const li = h("li", { class: `entry entry-${e.kind}`, "data-offset": e.offset });
  li.style.marginLeft = `${e.depth * 1.5}em`;
  const where = e.depth > 0 ? h("span", { class: "muted" }, ` · sub-agent run ${e.runId}`) : null;
  switch (e.kind) {
    case "message":
      append(li, [
        h("div", { class: "entry-head" }, h("strong", null, e.role), where),
        h("pre", { class: "text" }, e.text),
      ]);
      break;
    case "tool_call":
      append(li, [
        h(
          "div",
          { class: "entry-head" },
          h("strong", null, `tool call ${e.toolName}`),
          " ",
          h(
            "span",
            {
              class: `badge status-${e.status === "ok" ? "completed" : e.status === "error" ? "failed" : "running"}`,
            },
            e.status,
          ),
          e.outputBytes === undefined ? null : h("span", { class: "muted" }, ` · ${e.outputBytes} B`),
          where,
        ),
        off
          ? null
          : [h("div", { class: "label" }, "Arguments"), h("pre", { class: "code" }, json(e.arguments))],
        e.result === undefined
          ? null
          : [h("div", { class: "label" }, "Result"), h("pre", { class: "code tool-result" }, e.result)],
        e.error === undefined
          ? null
          : h("p", { class: "error-text" }, `[${e.error.code}] ${e.error.message}`),
      ]);
      break;
    case "structured":
      append(li, [
        h("div", { class: "entry-head" }, h("strong", null, "structured output"), where),
        h("pre", { class: "code" }, json(e.value)),
      ]);
      break;
    case "error":
      append(li, [
        h("div", { class: "entry-head" }, h("strong", { class: "error-text" }, `error in ${e.where}`), where),
        h("p", { class: "error-text" }, h("code", null, e.error.code), " ", e.error.message),
      ]);
      break;
    case "note":
      append(li, [h("p", { class: "muted" }, e.text, where)]);
      break;
  }
  return li;
}
