import type { ToolReturn } from "../tool/tool.js";
import type { ArtifactRef } from "./artifact-store.js";

/**
 * The tool result that stands in for stored artifacts: one short text block per reference
 * (`[artifact artifact-3: report.csv, text/csv, 48213 bytes]`), after an optional summary, with
 * the ids in `artifacts` so the loop tracks them on `run.artifacts`.
 */
export function artifactResult(refs: ArtifactRef | readonly ArtifactRef[], summary?: string): ToolReturn {
  const list = Array.isArray(refs) ? (refs as readonly ArtifactRef[]) : [refs as ArtifactRef];
  const lines = list.map((r) => `[artifact ${r.id}: ${r.name}, ${r.mimeType}, ${r.bytes} bytes]`);
  const text = (summary === undefined ? [] : [summary]).concat(lines).join("\n");
  return { kind: "tool_return", content: [{ type: "text", text }], artifacts: list.map((r) => r.id) };
}
