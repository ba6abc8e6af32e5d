import { validationError } from "@tinyagents/inference";
import type { GraphNodeIdentity } from "../contracts/graph-node.js";

export type { GraphNodeCall, GraphNodeIdentity, GraphNodeRef } from "../contracts/graph-node.js";

/** Check `value` is a usable {@link GraphNodeIdentity}; throws `validation` naming the field. */
export function validateGraphNode(value: unknown): GraphNodeIdentity {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw validationError("RunConfig.graphNode must be an object { graphRunId, graphId, node, threadId? }", {
      field: "graphNode",
    });
  }
  const v = value as Record<string, unknown>;
  for (const key of ["graphRunId", "graphId", "node"] as const) {
    if (typeof v[key] !== "string" || v[key] === "") {
      throw validationError(`RunConfig.graphNode.${key} must be a non-empty string`, {
        field: `graphNode.${key}`,
      });
    }
  }
  if (v.threadId !== undefined && (typeof v.threadId !== "string" || v.threadId === "")) {
    throw validationError("RunConfig.graphNode.threadId must be a non-empty string when set", {
      field: "graphNode.threadId",
    });
  }
  return value as GraphNodeIdentity;
}
