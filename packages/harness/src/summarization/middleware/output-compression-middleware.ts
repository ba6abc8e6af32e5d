import { defaultTokenCounter, type TokenCounter, validationError } from "@tinyagents/inference";
import { ArtifactStore } from "../../artifacts/artifact-store.js";
import { CompressionLog } from "../../events/compression-record.js";
import type { Middleware } from "../../middleware/middleware.js";
import type { ToolResult } from "../../tool/tool.js";
import { recordCompression } from "./record-compression.js";

/** Options of {@link outputCompressionMiddleware}. */
export interface OutputCompressionOptions {
  /** Tool results whose text is longer than this are stored and replaced (default 8,000 characters). */
  thresholdChars?: number;
  /** Characters of the output kept inline as a preview (default 500). */
  previewChars?: number;
  /** Where full outputs go (default: a fresh in-memory `ArtifactStore`, see `middleware.store`). */
  store?: ArtifactStore;
  /** Only results of these tools (default: every tool). */
  tools?: readonly string[];
  /** Default `"output_compression"`. */
  name?: string;
  counter?: TokenCounter;
  /** Records kept in `log` (default 1,024). */
  maxRecords?: number;
}

/** An output-compression middleware, with its artifact store and compression log. */
export interface OutputCompressionMiddleware<State, Ctx> extends Middleware<State, Ctx> {
  readonly log: CompressionLog;
  readonly store: ArtifactStore;
}

/**
 * Post-call compression of long tool outputs (`afterTool`): a successful result whose text is
 * longer than `thresholdChars` is stored whole in an `ArtifactStore` (`artifact.stored`), and the
 * transcript gets a preview plus a short reference (`artifact://<id>`); the artifact id is added
 * to the result's `artifacts` (and so to `run.artifacts`). Error results are left alone.
 *
 * The result is compressed before it joins the transcript, so it never changes an existing
 * prefix: declares `changes: "tail"`. Each compression is recorded (`kind: "output"`,
 * `sourceIds: ["tool:<callId>"]` — the tool message does not exist yet, its call id names it)
 * and emitted as `context.compressed`. Throws `validation` for bad options.
 */
export function outputCompressionMiddleware<State = unknown, Ctx = unknown>(
  options: OutputCompressionOptions = {},
): OutputCompressionMiddleware<State, Ctx> {
  const name = options.name ?? "output_compression";
  const threshold = options.thresholdChars ?? 8000;
  const preview = options.previewChars ?? 500;
  if (!Number.isInteger(threshold) || threshold <= 0) {
    throw validationError(
      `outputCompressionMiddleware: thresholdChars must be a positive integer, got ${threshold}`,
      {
        field: "thresholdChars",
      },
    );
  }
  if (!Number.isInteger(preview) || preview < 0 || preview > threshold) {
    throw validationError(
      `outputCompressionMiddleware: previewChars must be an integer in [0, thresholdChars], got ${preview}`,
      { field: "previewChars" },
    );
  }
  const only = options.tools === undefined ? undefined : new Set(options.tools);
  const store = options.store ?? new ArtifactStore();
  const counter = options.counter ?? defaultTokenCounter;
  const log = new CompressionLog(options.maxRecords);
  return {
    name,
    changes: "tail",
    log,
    store,
    async afterTool(ctx, result): Promise<ToolResult | undefined> {
      if (result.isError || (only !== undefined && !only.has(result.toolName))) return undefined;
      const full = result.content
        .map((b) => (b.type === "text" ? b.text : b.type === "json" ? JSON.stringify(b.value) : ""))
        .join("\n");
      if (full.length <= threshold) return undefined;
      const ref = await store.put(
        {
          name: `${result.toolName}-${result.callId}.txt`,
          content: full,
          metadata: { tool: result.toolName, callId: result.callId },
        },
        ctx.run,
      );
      const note = `\n[output truncated: ${full.length} characters; the full output is stored as ${ref.uri} (${ref.bytes} bytes)]`;
      const compressed: ToolResult = {
        ...result,
        content: [{ type: "text", text: full.slice(0, preview) + note }],
        artifacts: [...(result.artifacts ?? []), ref.id],
      };
      recordCompression(ctx, log, "", {
        by: name,
        kind: "output",
        reason: `tool "${result.toolName}" returned ${full.length} characters (over ${threshold}); stored as ${ref.uri}, kept a ${preview}-character preview`,
        sourceIds: [`tool:${result.callId}`],
        tokensBefore: counter.countText(full),
        tokensAfter: counter.countText(
          compressed.content[0]?.type === "text" ? compressed.content[0].text : "",
        ),
        segments: ["history"],
      });
      return compressed;
    },
  };
}
