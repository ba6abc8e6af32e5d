import type { StandardSchemaV1 } from "@standard-schema/spec";

/**
 * Turn Standard Schema issues into human-readable strings prefixed by a JSON path
 * (`$.items[0].name: Required`). Path segments may be plain keys or `{ key }` objects; numeric
 * keys render as indexes. Never returns an empty array: a failure without issues becomes a
 * generic `$: ...` line, so callers can always show something to the model.
 */
export function formatStandardIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): string[] {
  const lines = issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`);
  return lines.length > 0 ? lines : ["$: the arguments were rejected by the schema"];
}

/** A Standard Schema issue path as a JSON path (`$`, `$.city`, `$.items[0]`, `$["a b"]`). */
export function formatIssuePath(path: StandardSchemaV1.Issue["path"]): string {
  let out = "$";
  for (const segment of path ?? []) {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment;
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "symbol") out += `[${key.toString()}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}
