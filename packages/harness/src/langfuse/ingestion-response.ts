import { ProviderError, redactSecrets } from "@tinyagents/inference";

/** One envelope the legacy ingestion endpoint did not store. */
export interface LangfuseFailedItem {
  /** The envelope id (see `IngestionEnvelope.id`). */
  id: string;
  /** The per-event status Langfuse reported (400, 401, 404, 500, ...); 0 when it did not mention the id. */
  status: number;
  message: string;
}

/**
 * Read the answer of `/api/public/ingestion` for the envelopes `sentIds`: a 207 lists
 * `successes: [{id, status}]` and `errors: [{id, status, message, error}]` keyed by envelope id.
 * Ids the server did not mention are reported as failed (status 0), never assumed stored.
 * A 200/201 without that shape (a proxy may answer `{}`) means everything was accepted.
 *
 * @throws ProviderError when a 207 body is not the documented shape (nothing is known then).
 */
export function parseIngestionResponse(
  status: number,
  text: string,
  sentIds: readonly string[],
  secrets: readonly string[],
): LangfuseFailedItem[] {
  const parsed = parseJson(text);
  const successes = listField(parsed, "successes");
  const errors = listField(parsed, "errors");
  if (successes === undefined && errors === undefined) {
    if (status !== 207) return [];
    throw new ProviderError({
      provider: "langfuse",
      kind: "non_retryable",
      status,
      message:
        "Langfuse ingestion answered 207 without the documented {successes, errors} body, so it is unknown which events were stored. Check the endpoint (a proxy may rewrite answers) before sending again.",
      rawBody: redactSecrets(text, secrets).slice(0, 4000),
    });
  }
  const mentioned = new Set<string>();
  for (const item of successes ?? []) {
    if (typeof item.id === "string") mentioned.add(item.id);
  }
  const failed: LangfuseFailedItem[] = [];
  for (const item of errors ?? []) {
    const id = typeof item.id === "string" ? item.id : "(no id)";
    mentioned.add(id);
    failed.push({
      id,
      status: typeof item.status === "number" ? item.status : 0,
      message: errorText(item, secrets),
    });
  }
  for (const id of sentIds) {
    if (!mentioned.has(id)) failed.push({ id, status: 0, message: "not acknowledged by the server" });
  }
  return failed;
}

type Item = Record<string, unknown>;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function listField(value: unknown, field: string): Item[] | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const list = (value as Item)[field];
  if (!Array.isArray(list)) return undefined;
  return list.filter((item): item is Item => typeof item === "object" && item !== null);
}

function errorText(item: Item, secrets: readonly string[]): string {
  const parts: string[] = [];
  if (typeof item.message === "string") parts.push(item.message);
  if (item.error !== undefined)
    parts.push(typeof item.error === "string" ? item.error : JSON.stringify(item.error));
  const text = redactSecrets(parts.join(": ") || "rejected without a message", secrets);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
