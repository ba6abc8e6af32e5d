/**
 * Fixture files for the replay server. A scenario is one `NAME.fixture.json` file:
 *
 * ```json
 * { "description": "...", "provider": "groq", "model": "llama-3.3-70b-versatile",
 *   "stream": { "status": 200, "headers": { "content-type": "text/event-stream" }, "body": "text.stream.sse" },
 *   "unary":  { "status": 200, "headers": { "content-type": "application/json" }, "body": "text.unary.json" },
 *   "expect": { ... } }
 * ```
 *
 * `body` names a file next to the fixture (bytes served verbatim) — or `bodyText` gives the body
 * inline. `expect` is free-form: each test suite decides what it checks.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ReplayResponse } from "./replay-server.js";

/** One recorded exchange in a fixture file. */
export interface FixtureExchange {
  status?: number;
  headers?: Record<string, string>;
  /** File next to the fixture holding the body bytes. */
  body?: string;
  /** The body inline (when `body` is absent). */
  bodyText?: string;
}

/** A scenario file. `E` is the suite's `expect` shape. */
export interface Fixture<E = unknown> {
  /** The fixture name (file name without `.fixture.json`). */
  name: string;
  /** The directory holding it. */
  dir: string;
  description?: string;
  provider?: string;
  model?: string;
  stream?: FixtureExchange;
  unary?: FixtureExchange;
  expect: E;
}

/** Load `DIR/NAME.fixture.json`. */
export function loadFixture<E = unknown>(dir: string, name: string): Fixture<E> {
  const parsed = JSON.parse(readFileSync(join(dir, `${name}.fixture.json`), "utf8")) as Omit<
    Fixture<E>,
    "name" | "dir"
  >;
  return { ...parsed, name, dir };
}

/** Every fixture in `dir` (sorted by name). */
export function loadFixtures<E = unknown>(dir: string): Fixture<E>[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".fixture.json"))
    .sort()
    .map((file) => loadFixture<E>(dir, file.slice(0, -".fixture.json".length)));
}

/** The body bytes of an exchange. */
export function exchangeBody(dir: string, exchange: FixtureExchange): Uint8Array {
  if (exchange.body !== undefined) return readFileSync(join(dir, exchange.body));
  return Buffer.from(exchange.bodyText ?? "", "utf8");
}

/** A replay response for an exchange, with extra serving options (chunking, cut-off, ...). */
export function replayOf(
  dir: string,
  exchange: FixtureExchange,
  extra: Omit<ReplayResponse, "status" | "headers" | "body"> = {},
): ReplayResponse {
  const response: ReplayResponse = { ...extra, body: exchangeBody(dir, exchange) };
  if (exchange.status !== undefined) response.status = exchange.status;
  if (exchange.headers !== undefined) response.headers = exchange.headers;
  return response;
}
