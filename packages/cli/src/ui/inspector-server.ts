import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { TinyAgentsError, validationError } from "@tinyagents/inference";
import { uiAssetsDir } from "./assets-dir.js";
import { InspectorData, type InspectorStores } from "./inspector-data.js";
import {
  dashboardQuery,
  intParam,
  parseAction,
  pathSegments,
  readBody,
  requiredParam,
  runListQuery,
} from "./inspector-requests.js";
import type { InspectorControls } from "./run-controls.js";
import type { DetailPage, DetailPart, RunDetailPage } from "./view-types.js";

/** Options of {@link serveInspector}. */
export interface InspectorOptions extends InspectorStores {
  /** Runs this process can act on (approve, pause, resume, cancel). Without it the page is read-only. */
  controls?: InspectorControls;
  /** Address to bind (default `127.0.0.1`). Any non-loopback address requires a token. */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
  /**
   * The access token (at least 16 characters), required on every bind, loopback included (any
   * local process or user could read the runs otherwise): when it is missing one is generated.
   * `InspectorServer.url` carries it; the page trades it for an `HttpOnly` cookie.
   */
  token?: string;
  /** Where the built web app lives (default: `dist/inspector` of this package). */
  assetsDir?: string;
  /** Journal poll interval of the live tail, ms (default 300). */
  pollMs?: number;
}

/** A running inspector. */
export interface InspectorServer {
  /** The page's address, with its `?token=`: open it to sign in. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The access token (API clients send `Authorization: Bearer <token>`). */
  readonly token: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const ASSETS: Readonly<Record<string, string>> = {
  "/": "index.html",
  "/app.js": "app.js",
  "/app.css": "app.css",
};
const TYPES: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};
// Everything from this origin, no inline script, no framing: model and tool content is text.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'";

/**
 * Serve the run inspector over `journal` and `statusStore` (the store interfaces the CLI uses):
 * the runs list, run pages (timeline, transcript, cost, prompt cache), a live tail over
 * Server-Sent Events, comparisons, and — for runs registered in `controls` — approvals and
 * steering. Binds 127.0.0.1 by default; another address needs a token (generated when absent).
 */
export async function serveInspector(options: InspectorOptions): Promise<InspectorServer> {
  const host = options.host ?? "127.0.0.1";
  const loopback = LOOPBACK.has(host);
  if (options.token !== undefined && options.token.length < 16)
    throw validationError("serveInspector: token must be at least 16 characters", { field: "token" });
  const token = options.token ?? randomBytes(18).toString("base64url");
  const assetsDir = options.assetsDir ?? uiAssetsDir();
  const assets = new Map<string, Buffer>();
  for (const file of Object.values(ASSETS)) {
    try {
      assets.set(file, readFileSync(join(assetsDir, file)));
    } catch {
      throw new TinyAgentsError(
        "capability",
        `the inspector's web app is not built (${join(assetsDir, file)} is missing); run \`npm run build\``,
      );
    }
  }
  const data = new InspectorData(options, options.controls);
  const pollMs = options.pollMs ?? 300;
  const streams = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendError(res, error));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://inspector.local");
    if (!hostAllowed(req.headers.host, loopback))
      return sendJson(res, 421, problem("forbidden", "unexpected Host header"));
    if (!authorized(req, url, token)) {
      return sendJson(
        res,
        401,
        problem("auth", "this inspector needs its token: open the URL it printed (…?token=…)"),
      );
    }
    if (url.searchParams.get("token") === token && req.method === "GET" && url.pathname === "/") {
      // Trade the token in the URL for a cookie, then drop it from the address bar.
      res.writeHead(303, {
        location: "/",
        "set-cookie": `inspector_token=${token}; HttpOnly; SameSite=Strict; Path=/`,
      });
      res.end();
      return;
    }
    const asset = ASSETS[url.pathname];
    if (req.method === "GET" && asset !== undefined) return sendAsset(res, asset);
    const parts = pathSegments(url.pathname);
    if (parts === undefined)
      return sendJson(
        res,
        400,
        problem(
          "validation",
          "malformed percent-encoding in the path: encode run ids with encodeURIComponent",
        ),
      );
    if (parts[0] !== "api") return sendJson(res, 404, problem("not_found", `no page ${url.pathname}`));
    if (req.method === "GET" && parts.length === 2 && parts[1] === "runs")
      return sendJson(res, 200, await data.listRuns());
    if (req.method === "GET" && parts.length === 2 && parts[1] === "run-list")
      return sendJson(res, 200, await data.listRunsPage(runListQuery(url)));
    // A run by id in the query (`/api/run?id=..`): any stored id, `..` and `a/b` included, which
    // a path segment cannot carry (the browser resolves `..` before sending it).
    if (req.method === "GET" && parts.length === 2 && parts[1] === "run")
      return sendDetailPage(res, requiredParam(url, "id"));
    if (req.method === "GET" && parts.length === 3 && parts[1] === "run" && parts[2] === "part")
      return sendPart(res, requiredParam(url, "id"), url);
    if (req.method === "GET" && parts.length === 3 && parts[1] === "runs")
      return sendDetailPage(res, parts[2] ?? "");
    if (req.method === "GET" && parts.length === 2 && parts[1] === "dashboard")
      return sendJson(res, 200, await data.dashboard(dashboardQuery(url)));
    if (req.method === "GET" && parts.length === 2 && parts[1] === "evals")
      return sendJson(res, 200, await data.listEvals());
    if (req.method === "GET" && parts.length === 2 && parts[1] === "eval") {
      const id = requiredParam(url, "id");
      const baseline = url.searchParams.get("baseline") ?? undefined;
      const view = await data.evalDetail(id, baseline === "" ? undefined : baseline);
      return view === undefined
        ? sendJson(
            res,
            404,
            problem(
              "not_found",
              `no eval run ${JSON.stringify(id)}${baseline === undefined ? "" : ` or baseline ${JSON.stringify(baseline)}`} in this store`,
            ),
          )
        : sendJson(res, 200, view);
    }
    if (req.method === "GET" && parts.length === 4 && parts[1] === "runs" && parts[3] === "events")
      return liveTail(req, res, parts[2] ?? "", url);
    if (req.method === "GET" && parts.length === 3 && parts[1] === "run" && parts[2] === "events")
      return liveTail(req, res, requiredParam(url, "id"), url);
    if (req.method === "GET" && parts.length === 2 && parts[1] === "compare") {
      const a = url.searchParams.get("a") ?? "";
      const b = url.searchParams.get("b") ?? "";
      const [left, right] = await Promise.all([data.runDetail(a), data.runDetail(b)]);
      if (left === undefined || right === undefined)
        return sendJson(
          res,
          404,
          problem("not_found", `no run "${left === undefined ? a : b}" in this store`),
        );
      return sendJson(res, 200, { a: left, b: right });
    }
    const actionsOf =
      req.method !== "POST"
        ? undefined
        : parts.length === 4 && parts[1] === "runs" && parts[3] === "actions"
          ? parts[2]
          : parts.length === 3 && parts[1] === "run" && parts[2] === "actions"
            ? requiredParam(url, "id")
            : undefined;
    if (actionsOf !== undefined) {
      // A custom header cannot be sent cross-site without a CORS preflight (which is never granted).
      if (req.headers["x-tinyagents-inspector"] !== "1")
        return sendJson(res, 403, problem("forbidden", "actions need the X-Tinyagents-Inspector: 1 header"));
      if (options.controls === undefined)
        return sendJson(
          res,
          409,
          problem("validation", "this inspector has no run controls: it is read-only"),
        );
      const action = parseAction(await readBody(req));
      const outcome = options.controls.apply(actionsOf, action);
      return sendJson(res, 200, { ok: true, ...outcome });
    }
    sendJson(res, 404, problem("not_found", `no API route ${req.method} ${url.pathname}`));
  }

  /** Serialized first pages, by the computed detail they come from (see sendDetailPage). */
  const pageBodies = new WeakMap<object, { controlKey: string; body: string }>();

  /** A run's detail with the first page of each long part (its totals say how much more there is). */
  async function sendDetailPage(res: ServerResponse, runId: string): Promise<void> {
    const detail = await data.runDetail(runId);
    if (detail === undefined)
      return sendJson(res, 404, problem("not_found", `no run ${JSON.stringify(runId)} in this store`));
    // Readers of one run wait for one shared computation and would all serialize in the same
    // turn of the event loop: each takes a turn of its own, so other requests pass in between.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Concurrent readers of a finished run share its computed detail (same arrays): its page is
    // serialized once and the text reused while what this process can do to the run is the same.
    const controlKey = JSON.stringify([detail.control, detail.approvals]);
    const known = pageBodies.get(detail.spans);
    if (known !== undefined && known.controlKey === controlKey) return sendText(res, 200, known.body);
    const page: RunDetailPage = {
      ...detail,
      spans: detail.spans.slice(0, PAGE_SIZE),
      transcript: detail.transcript.slice(0, PAGE_SIZE),
      cache: detail.cache.slice(0, PAGE_SIZE),
      totals: {
        spans: detail.spans.length,
        transcript: detail.transcript.length,
        cache: detail.cache.length,
      },
    };
    const body = JSON.stringify(page);
    pageBodies.set(detail.spans, { controlKey, body });
    sendText(res, 200, body);
  }

  /** `GET /api/run/part?id=&part=spans|transcript|cache&from=&limit=`: one page of a long part. */
  async function sendPart(res: ServerResponse, runId: string, url: URL): Promise<void> {
    const part = url.searchParams.get("part") ?? "";
    if (!DETAIL_PARTS.has(part))
      throw validationError(`part must be one of spans, transcript, cache; got ${JSON.stringify(part)}`, {
        field: "part",
      });
    const from = intParam(url, "from", 0, Number.MAX_SAFE_INTEGER);
    const limit = intParam(url, "limit", PAGE_SIZE, MAX_PAGE_SIZE);
    const detail = await data.runDetail(runId);
    if (detail === undefined)
      return sendJson(res, 404, problem("not_found", `no run ${JSON.stringify(runId)} in this store`));
    await new Promise<void>((resolve) => setImmediate(resolve));
    const all = detail[part as DetailPart] as unknown[];
    const page: DetailPage<unknown> = { items: all.slice(from, from + limit), from, total: all.length };
    sendJson(res, 200, page);
  }

  /** Server-Sent Events: every observation from the offset on, each with its offset as event id. */
  async function liveTail(req: IncomingMessage, res: ServerResponse, runId: string, url: URL): Promise<void> {
    const last = req.headers["last-event-id"];
    let next = Number(
      typeof last === "string" && last !== "" ? Number(last) + 1 : (url.searchParams.get("from") ?? 0),
    );
    if (!Number.isInteger(next) || next < 0) next = 0;
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    res.write("retry: 1000\n\n");
    streams.add(res);
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const stop = () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      streams.delete(res);
    };
    req.on("close", stop);
    const poll = async () => {
      if (stopped) return;
      try {
        const batch = await data.tail(runId, next);
        for (const o of batch) {
          res.write(`id: ${o.offset}\nevent: observation\ndata: ${JSON.stringify(o)}\n\n`);
          next = o.offset + 1;
        }
      } catch (error) {
        res.write(`event: error\ndata: ${JSON.stringify(problem("internal", (error as Error).message))}\n\n`);
      }
      if (!stopped) timer = setTimeout(poll, pollMs);
    };
    await poll();
  }

  function sendAsset(res: ServerResponse, file: string): void {
    const body = assets.get(file) as Buffer;
    res.writeHead(200, {
      "content-type": TYPES[file.split(".").pop() ?? ""] ?? "application/octet-stream",
      "content-security-policy": CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-cache",
    });
    res.end(body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE" || error.code === "EACCES" || error.code === "EADDRNOTAVAIL"
          ? new TinyAgentsError(
              "capability",
              `cannot listen on ${host}:${options.port ?? 0} (${error.code}); choose another port with --port N (0 picks a free one) or another --host`,
            )
          : error,
      ),
    );
    server.listen(options.port ?? 0, host, () => {
      server.removeAllListeners("error");
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/?token=${token}`,
    host: address.address,
    port: address.port,
    token,
    close: () => closeServer(server, streams),
  };
}

function closeServer(server: Server, streams: Set<ServerResponse>): Promise<void> {
  for (const res of streams) res.end();
  streams.clear();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Items per page of a run's long parts (timeline, transcript, prompt-cache calls). */
const PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 2000;
const DETAIL_PARTS: ReadonlySet<string> = new Set<DetailPart>(["spans", "transcript", "cache"]);

/** Loopback servers accept only loopback Host headers (no DNS rebinding from a web page). */
function hostAllowed(header: string | undefined, loopback: boolean): boolean {
  if (!loopback) return true;
  if (header === undefined) return false;
  const name = header.startsWith("[")
    ? header.slice(0, header.indexOf("]") + 1)
    : (header.split(":")[0] ?? "");
  return name === "127.0.0.1" || name === "localhost" || name === "[::1]";
}

function authorized(req: IncomingMessage, url: URL, token: string): boolean {
  const candidates = [url.searchParams.get("token") ?? ""];
  const bearer = req.headers.authorization;
  if (bearer?.startsWith("Bearer ")) candidates.push(bearer.slice(7));
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, value] = part.trim().split("=");
    if (name === "inspector_token" && value !== undefined) candidates.push(value);
  }
  const want = Buffer.from(token);
  return candidates.some((c) => {
    const got = Buffer.from(c);
    return got.length === want.length && timingSafeEqual(got, want);
  });
}

function problem(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON.stringify(body));
}

/** Send JSON already serialized. */
function sendText(res: ServerResponse, status: number, json: string): void {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.end(json);
}

function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (error instanceof TinyAgentsError) {
    sendJson(res, error.code === "validation" ? 400 : 500, problem(error.code, error.message));
    return;
  }
  sendJson(res, 500, problem("internal", error instanceof Error ? error.message : String(error)));
}
