/**
 * The inspector's requests read safely: path segments (malformed percent-encoding is a 400, not a
 * 500), query parameters with typed `validation` errors, the runs-list and dashboard queries, and
 * action bodies.
 */
import type { IncomingMessage } from "node:http";
import { validationError } from "@tinyagents/inference";
import type { RunListQuery } from "./inspector-data.js";
import type { RunAction } from "./run-controls.js";
import type { DashboardQuery } from "./view-types.js";

/** The decoded segments of a path, or `undefined` when its percent-encoding is malformed. */
export function pathSegments(pathname: string): string[] | undefined {
  try {
    return pathname
      .split("/")
      .filter((p) => p !== "")
      .map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

/** `?limit=&after=<startedAt>&afterId=<runId>&status=&evals=1&q=&from=&to=` of `GET /api/run-list`. */
export function runListQuery(url: URL): RunListQuery {
  const query: RunListQuery = {
    limit: intParam(url, "limit", 100, 1000) || 100,
    includeEvals: url.searchParams.get("evals") === "1",
  };
  const afterId = url.searchParams.get("afterId");
  if (afterId !== null)
    query.after = { startedAt: intParam(url, "after", 0, Number.MAX_SAFE_INTEGER), runId: afterId };
  const status = url.searchParams.get("status");
  if (status !== null && status !== "" && status !== "all") query.status = status;
  const search = url.searchParams.get("q");
  if (search !== null && search.trim() !== "") query.search = search;
  if (url.searchParams.has("from")) query.from = intParam(url, "from", 0, Number.MAX_SAFE_INTEGER);
  if (url.searchParams.has("to")) query.to = intParam(url, "to", 0, Number.MAX_SAFE_INTEGER);
  return query;
}

/** `?from=&to=&agent=&model=&status=&tag=&thread=` of `GET /api/dashboard` (default: the last 7 days). */
export function dashboardQuery(url: URL): DashboardQuery {
  const now = Date.now();
  const to = intParam(url, "to", now, Number.MAX_SAFE_INTEGER);
  const from = intParam(url, "from", to - 7 * 24 * 3_600_000, Number.MAX_SAFE_INTEGER);
  if (from >= to) throw validationError("?from= must be before ?to= (epoch ms)", { field: "from" });
  const query: DashboardQuery = { from, to };
  for (const key of ["agent", "model", "status", "tag", "thread"] as const) {
    const value = url.searchParams.get(key);
    if (value !== null && value !== "" && value !== "all") query[key] = value;
  }
  return query;
}

export function requiredParam(url: URL, name: string): string {
  const value = url.searchParams.get(name);
  if (value === null || value === "")
    throw validationError(`the query needs ?${name}= (URL-encoded)`, { field: name });
  return value;
}

export function intParam(url: URL, name: string, fallback: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > max)
    throw validationError(`?${name}= must be an integer from 0 to ${max}, got ${JSON.stringify(raw)}`, {
      field: name,
    });
  return n;
}

export function parseAction(body: unknown): RunAction {
  const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const str = (key: string): string => {
    const value = b[key];
    if (typeof value !== "string" || value === "")
      throw validationError(`action "${String(b.action)}" needs a non-empty string "${key}"`, { field: key });
    return value;
  };
  switch (b.action) {
    case "approve":
      return { action: "approve", approvalId: str("approvalId") };
    case "reject":
      return { action: "reject", approvalId: str("approvalId"), reason: str("reason") };
    case "pause":
    case "resume":
      return { action: b.action };
    case "cancel":
      return typeof b.reason === "string" ? { action: "cancel", reason: b.reason } : { action: "cancel" };
    default:
      throw validationError(
        `unknown action ${JSON.stringify(b.action)}; expected approve, reject, pause, resume or cancel`,
        { field: "action" },
      );
  }
}

export async function readBody(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw validationError("request body over 64 KB", { field: "body" });
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw validationError("the request body must be JSON", { field: "body" });
  }
}
