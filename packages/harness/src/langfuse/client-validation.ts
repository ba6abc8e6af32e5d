import { validationError } from "@tinyagents/inference";
import type { EventRecord } from "../contracts/agent-event.js";

// Input checks of `LangfuseClient`: every failure is a `validation` error that says what to fix.

/** An absolute http(s) URL without credentials, returned without a trailing slash. */
export function checkUrl(value: unknown, where: string, field: string): string {
  let url: URL | undefined;
  try {
    url = typeof value === "string" ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    // The value is not echoed: a swapped argument could be a key or token.
    throw validationError(
      `${where}: ${field} must be an absolute http(s) URL such as https://cloud.langfuse.com; got a value that is not one`,
      { field },
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw validationError(`${where}: ${field} must not embed credentials; pass keys or tokens as arguments`, {
      field,
    });
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

/** A non-empty, printable-ASCII key or token (never echoed in the error). */
export function checkKey(value: unknown, field: string): void {
  if (typeof value !== "string" || value.trim() === "") {
    throw validationError(`LangfuseClient: ${field} must be a non-empty string`, { field });
  }
  if (!/^[\x21-\x7e]+$/.test(value)) {
    throw validationError(
      `LangfuseClient: ${field} contains whitespace or non-ASCII characters; copy the value again without them`,
      { field },
    );
  }
}

/** `value` when it is a positive finite number, `fallback` when undefined. */
export function positive(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw validationError(`LangfuseClient: ${field} must be a positive number, got ${String(value)}`, {
      field,
    });
  }
  return value;
}

/** `records` is a non-empty array of event records. */
export function checkRecords(records: readonly EventRecord[]): void {
  if (!Array.isArray(records) || records.length === 0) {
    throw validationError(
      "LangfuseClient.exportRun: records must be a non-empty array of event records (e.g. EventRecorder.records)",
      { field: "records" },
    );
  }
  for (const [index, record] of records.entries()) {
    const ok =
      typeof record === "object" &&
      record !== null &&
      typeof record.runId === "string" &&
      typeof record.rootRunId === "string" &&
      typeof record.ts === "number" &&
      typeof record.event?.type === "string";
    if (!ok) {
      throw validationError(
        `LangfuseClient.exportRun: records[${index}] is not an event record (needs runId, rootRunId, ts and event.type)`,
        { field: `records[${index}]` },
      );
    }
  }
}
