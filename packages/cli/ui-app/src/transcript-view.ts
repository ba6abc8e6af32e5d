import type { TranscriptEntry } from "../../src/ui/view-types.js";
import { append, h } from "./dom.js";
import { json } from "./format.js";

/**
 * The transcript: messages, tool calls with arguments and results, structured output and errors
 * with their codes, indented by sub-agent depth. All of it text nodes (see dom.ts).
 */
export function transcriptView(entries: readonly TranscriptEntry[], contentCaptured: boolean): HTMLElement {
  return h(
    "div",
    { class: "transcript" },
    contentCaptured
      ? null
      : h(
          "p",
          { class: "notice" },
          "Message content was not captured for this run: the journal holds tool arguments, streamed text and outcomes. " +
            "Runs of the tinyagents CLI capture it; in your own code add traceDetailsMiddleware({ captureContent: true }).",
        ),
    entries.length === 0 ? h("p", null, "Nothing yet.") : h("ol", { class: "entries" }, entries.map(entry)),
  );
}

function entry(e: TranscriptEntry): HTMLLIElement {
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
        h("div", { class: "label" }, "Arguments"),
        h("pre", { class: "code" }, json(e.arguments)),
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
