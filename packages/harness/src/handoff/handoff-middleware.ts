import type { JsonObject } from "@tinyagents/inference";
import type { Middleware } from "../middleware/middleware.js";
import { tool } from "../tool/define-tool.js";
import type { Tool } from "../tool/tool.js";
import type { ResultHandoffCache } from "./result-handoff-cache.js";

/** Middleware that offloads oversized tool results into `cache` (its `afterTool` hook). */
export function largeResultHandoff<State = unknown, Ctx = unknown>(
  cache: ResultHandoffCache,
): Middleware<State, Ctx> {
  return {
    name: "large_result_handoff",
    afterTool: (ctx, result) => cache.offload(result, ctx.run),
  };
}

/**
 * The `read_handoff` tool: lets the model page through an output `largeResultHandoff` offloaded.
 * An unknown or expired reference becomes an error result the model can read.
 */
export function readHandoffTool<State = unknown, Ctx = unknown>(
  cache: ResultHandoffCache,
): Tool<State, Ctx, JsonObject> {
  return tool<State, Ctx>({
    name: "read_handoff",
    description:
      "Read more of a tool output that was too large to show in full. Pass the reference from the truncation note and the character offset to start at.",
    inputSchema: {
      type: "object",
      properties: {
        ref: { type: "string", description: "The handoff reference, like handoff-3." },
        offset: { type: "integer", minimum: 0, description: "Character offset to start reading at." },
        length: { type: "integer", minimum: 1, description: "Characters to read." },
      },
      required: ["ref"],
    },
    execute: (args) => {
      const page = cache.read(
        String(args.ref),
        typeof args.offset === "number" ? args.offset : 0,
        typeof args.length === "number" ? args.length : undefined,
      );
      const next = page.done
        ? "[end of output]"
        : `[continues at offset ${page.offset + page.text.length} of ${page.total}]`;
      return `${page.text}\n${next}`;
    },
  });
}
