import { inspect } from "node:util";
import { expect } from "vitest";

/**
 * The secret-serialization checks of issue 35, shared by every package's secrets test: how an
 * object or an error gets printed in the wild, and the assertion that none of the credentials
 * a test set shows up in it.
 */

/** `JSON.stringify` (or, for a circular driver object, the error it throws), `util.inspect` and `String`. */
export function printed(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    json = String(error);
  }
  return [json, inspect(value, { depth: 8 }), String(value)].join("\n");
}

/** An error: its text, its inspection and its JSON, for it and every `cause` down the chain. */
export function printedError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 8; depth++) {
    parts.push(String(current), inspect(current, { depth: 8 }), JSON.stringify(current) ?? "");
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join("\n");
}

/** Assert that `text` contains none of `secrets` (the failure names which one, not the text). */
export function expectNoSecrets(text: string, secrets: readonly string[]): void {
  const shown = secrets.filter((secret) => text.includes(secret));
  expect(shown, "credentials that were printed").toEqual([]);
}

/**
 * Whatever `promise` rejects with, of any type (a driver or spawn error too, unlike `rejection` of
 * thrown.ts, which wants a TinyAgentsError); `undefined` when it resolved.
 */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
}
