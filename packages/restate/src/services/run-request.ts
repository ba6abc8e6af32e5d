import type { TerminalError } from "@restatedev/restate-sdk";
import { canonicalJson, sha256Hex } from "@tinyagents/harness/cache";
import { isJsonObject } from "@tinyagents/inference";
import { handlerError } from "./handler-errors.js";
import type { RestateRunRequest } from "./run-protocol.js";

/**
 * Check a run request's shape (a terminal 400 naming the field otherwise: a malformed request
 * never gets better by retrying). The harness validates the input messages themselves.
 */
export function checkRunRequest(body: unknown): RestateRunRequest {
  if (!isJsonObject(body)) throw bad("the request body must be a JSON object { input, threadId?, ... }");
  const { input, threadId, model, tags, metadata, parentRunId } = body as Record<string, unknown>;
  if (input === undefined || input === null)
    throw bad("`input` is required: a prompt, a message or messages");
  if (threadId !== undefined && (typeof threadId !== "string" || threadId === ""))
    throw bad("`threadId` must be a non-empty string");
  if (model !== undefined && typeof model !== "string") throw bad("`model` must be a registered model name");
  if (tags !== undefined && !(Array.isArray(tags) && tags.every((t) => typeof t === "string")))
    throw bad("`tags` must be an array of strings");
  if (metadata !== undefined && !isJsonObject(metadata)) throw bad("`metadata` must be a JSON object");
  if (parentRunId !== undefined && typeof parentRunId !== "string")
    throw bad("`parentRunId` must be a string");
  return body as unknown as RestateRunRequest;
}

function bad(message: string): TerminalError {
  return handlerError("validation", `invalid run request: ${message}`);
}

/**
 * What identifies a run's request: SHA-256 of its canonical JSON (key order ignored). The client
 * compares it when a run id is started again: the same request is the same run, another is
 * `conflict`. Anything that is not JSON hashes as its type, so a refused request has a hash too.
 */
export function requestHash(body: unknown): string {
  try {
    return sha256Hex(canonicalJson(body ?? null));
  } catch {
    return sha256Hex(typeof body);
  }
}
