import type {
  DashboardView,
  DetailPage,
  DetailPart,
  EvalRunRow,
  EvalView,
  RunDetail,
  RunDetailPage,
  RunListPage,
  RunSummary,
} from "../../src/ui/view-types.js";

/** A failed API call, with the server's message. */
export class ApiError extends Error {}

async function get<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { accept: "application/json" } });
  const body = (await res.json()) as T & { error?: { message: string } };
  if (!res.ok) throw new ApiError(body.error?.message ?? `${res.status} ${res.statusText}`);
  return body;
}

export const listRuns = (): Promise<RunSummary[]> => get("/api/runs");

/** A page of the runs list, newest first, filtered by the server (status, eval trials, search). */
export function listRunsPage(query: {
  limit: number;
  status: string;
  evals: boolean;
  q: string;
  after?: { startedAt: number; runId: string };
  window?: { from: number; to: number };
}): Promise<RunListPage> {
  const p = new URLSearchParams({ limit: String(query.limit), status: query.status, q: query.q });
  if (query.evals) p.set("evals", "1");
  if (query.window !== undefined) {
    p.set("from", String(query.window.from));
    p.set("to", String(query.window.to));
  }
  if (query.after !== undefined) {
    p.set("after", String(query.after.startedAt));
    p.set("afterId", query.after.runId);
  }
  return get(`/api/run-list?${p.toString()}`);
}
// Run ids travel in the query string, encoded: any stored id (`..`, `a/b`, unicode) reaches the
// server as it is (a path segment `..` would be resolved away by the browser).
const q = (id: string): string => `id=${encodeURIComponent(id)}`;

/** A run's detail with the first page of its timeline, transcript and prompt-cache calls. */
export const runDetail = (id: string): Promise<RunDetailPage> => get(`/api/run?${q(id)}`);

/** The next page of a run's long part. */
export function runPart<T>(id: string, part: DetailPart, from: number): Promise<DetailPage<T>> {
  return get(`/api/run/part?${q(id)}&part=${part}&from=${from}`);
}

/** The live tail's address (Server-Sent Events from `from` on). */
export const eventsUrl = (id: string, from: number): string => `/api/run/events?${q(id)}&from=${from}`;
export const compareRuns = (a: string, b: string): Promise<{ a: RunDetail; b: RunDetail }> =>
  get(`/api/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);

/** Ask the server to act on a run (approve, reject, pause, resume, cancel). */
export async function act(runId: string, body: Record<string, string>): Promise<void> {
  const res = await fetch(`/api/run/actions?${q(runId)}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-tinyagents-inspector": "1" },
    body: JSON.stringify(body),
  });
  if (!res.ok) {
    const problem = (await res.json()) as { error?: { message: string } };
    throw new ApiError(problem.error?.message ?? `${res.status} ${res.statusText}`);
  }
}

/** The run page's route. */
export const runHref = (id: string): string => `#/runs/${encodeURIComponent(id)}`;
export const compareHref = (a: string, b: string): string =>
  `#/compare/${encodeURIComponent(a)}/${encodeURIComponent(b)}`;

/** Eval runs, newest first. */
export const listEvals = (): Promise<EvalRunRow[]> => get("/api/evals");
/** An eval run's page, compared with `baseline` when given. */
export const evalDetail = (id: string, baseline?: string): Promise<EvalView> =>
  get(`/api/eval?${q(id)}${baseline === undefined ? "" : `&baseline=${encodeURIComponent(baseline)}`}`);
export const evalsHref = "#/evals";
export const evalHref = (id: string, baseline?: string): string =>
  `#/evals/${encodeURIComponent(id)}${baseline === undefined ? "" : `/${encodeURIComponent(baseline)}`}`;

/** The dashboard for a window and a filter (`all` or empty: no filter). */
export function dashboard(query: {
  from: number;
  to: number;
  agent: string;
  model: string;
  status: string;
  tag: string;
  thread: string;
}): Promise<DashboardView> {
  const p = new URLSearchParams({
    from: String(Math.floor(query.from)),
    to: String(Math.floor(query.to)),
    agent: query.agent,
    model: query.model,
    status: query.status,
    tag: query.tag,
    thread: query.thread,
  });
  return get(`/api/dashboard?${p.toString()}`);
}
