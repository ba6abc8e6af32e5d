import { TinyAgentsError } from "@tinyagents/inference";

/**
 * How much one MCP server may make us read. A server is a peer we do not control: every
 * listing and every message is bounded, and crossing a bound is a typed error naming the limit
 * and the server (`limit_exceeded`, or `timeout` for `listTimeoutMs`).
 */
export interface McpLimits {
  /** Pages of one `tools/list` (a server returning `nextCursor` forever stops here). Default 100. */
  maxListPages?: number;
  /** Tools one server may list in total. Default 1,000. */
  maxTools?: number;
  /**
   * Bytes of one message from the server: a stdio line, a JSON HTTP response, or one SSE event.
   * Refused as soon as the bound is crossed (or at once when `Content-Length` says so), never
   * buffered whole. Default 8 MiB.
   */
  maxMessageBytes?: number;
  /**
   * Bytes of one whole tool listing, all pages included (the listed tools as JSON): a server
   * sending many pages just under `maxMessageBytes` stops here, not at pages x message size.
   * Default 16 MiB.
   */
  maxListBytes?: number;
  /** Time for one whole tool listing, all pages included. Default 30 s. */
  listTimeoutMs?: number;
}

/** The defaults of {@link McpLimits}. */
export const DEFAULT_MCP_LIMITS: Readonly<Required<McpLimits>> = Object.freeze({
  maxListPages: 100,
  maxTools: 1_000,
  maxMessageBytes: 8 * 1024 * 1024,
  maxListBytes: 16 * 1024 * 1024,
  listTimeoutMs: 30_000,
});

/** Fill in the defaults; a limit that is not a positive number is a `validation` error. */
export function resolveLimits(limits: McpLimits): Required<McpLimits> {
  const out = { ...DEFAULT_MCP_LIMITS };
  for (const key of Object.keys(DEFAULT_MCP_LIMITS) as (keyof McpLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !(value > 0)) {
      throw new TinyAgentsError(
        "validation",
        `MCP option ${key} must be a positive number, got ${String(value)}`,
        {
          details: { field: key },
        },
      );
    }
    out[key] = value;
  }
  return out;
}

/** The typed error for a crossed bound: says what the server did, which limit, and how to raise it. */
export function limitError(server: string, limit: string, value: number, what: string): TinyAgentsError {
  return new TinyAgentsError(
    limit.endsWith("Ms") ? "timeout" : "limit_exceeded", // time bounds end in Ms
    `MCP server ${server} ${what} (limit ${limit} = ${value}); raise ${limit} only if you trust this server`,
    { details: { server, limit, value } },
  );
}

/**
 * Remembers the first bound a server crossed, so the request that failed because of it (often
 * with a bare "Connection closed") reports the bound instead (see `tripped`); `onTrip` closes
 * the connection.
 */
export class McpReadGuard {
  readonly server: string;
  readonly limits: Required<McpLimits>;
  private error: TinyAgentsError | undefined;
  onTrip: (() => void) | undefined;

  constructor(server: string, limits: Required<McpLimits>) {
    this.server = server;
    this.limits = limits;
  }

  /** The bound that was crossed, if any. */
  get tripped(): TinyAgentsError | undefined {
    return this.error;
  }

  /** Record `error` (the first one wins) and close the connection. Returns the recorded error. */
  trip(error: TinyAgentsError): TinyAgentsError {
    if (this.error === undefined) {
      this.error = error;
      this.onTrip?.();
    }
    return this.error;
  }

  /** The error for a message over `maxMessageBytes`. */
  tooLarge(where: string): TinyAgentsError {
    const max = this.limits.maxMessageBytes;
    return limitError(this.server, "maxMessageBytes", max, `sent ${where} larger than ${max} bytes`);
  }
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A `fetch` for the Streamable HTTP transport whose response bodies are bounded by the guard's
 * `maxMessageBytes`: a JSON body in total, an SSE stream per event (bytes since the last blank
 * line). A declared `Content-Length` over the bound is refused before reading anything.
 */
export function boundedFetch(guard: McpReadGuard, base: Fetch = (input, init) => fetch(input, init)): Fetch {
  const max = guard.limits.maxMessageBytes;
  return async (input, init) => {
    const response = await base(input, init);
    // No body to bound (a Response with these statuses cannot carry one either).
    if (response.body === null || [101, 204, 205, 304].includes(response.status)) return response;
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declared > max) {
      await response.body.cancel().catch(() => {});
      throw guard.trip(guard.tooLarge(`a ${declared}-byte HTTP response`));
    }
    const sse = /^\s*text\/event-stream/i.test(response.headers.get("content-type") ?? "");
    const body = response.body.pipeThrough(
      byteLimit(max, sse, () => guard.trip(guard.tooLarge(sse ? "an SSE event" : "an HTTP response"))),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * Passes bytes through until more than `max` arrive (in total, or for `perEvent` since the
 * last blank line), then errors the stream, which also cancels the source.
 */
function byteLimit(
  max: number,
  perEvent: boolean,
  exceeded: () => Error,
): TransformStream<Uint8Array, Uint8Array> {
  let count = 0;
  let atLineStart = true;
  return new TransformStream({
    transform(chunk, controller) {
      if (!perEvent) {
        count += chunk.byteLength;
      } else {
        for (const byte of chunk) {
          if (byte === 10) {
            if (atLineStart) count = 0; // a blank line ends the event
            atLineStart = true;
          } else if (byte !== 13) {
            atLineStart = false;
            count++;
          }
        }
      }
      if (count > max) controller.error(exceeded());
      else controller.enqueue(chunk);
    },
  });
}
