import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type Message,
  type ToolMessage,
  text,
} from "@tinyagents/inference";

/** Appended to every answer composed from tool results. */
export const SCRIPTED_NOTE = "(Scripted answer from the offline demo model.)";

/** A tool result the demo model read back, parsed. */
export interface SeenResult {
  toolName: string;
  isError: boolean;
  text: string;
  json?: JsonValue;
}

/** Read the tool messages of this run (after the last user message). */
export function resultsSince(messages: readonly Message[], start: number): SeenResult[] {
  return messages
    .slice(start)
    .filter((m): m is ToolMessage => m.role === "tool")
    .map((m) => {
      const jsonBlock = m.content.find((b) => b.type === "json");
      const body = text(m);
      const seen: SeenResult = { toolName: m.toolName ?? "tool", isError: m.isError === true, text: body };
      if (jsonBlock?.type === "json") seen.json = jsonBlock.value;
      else {
        try {
          seen.json = JSON.parse(body) as JsonValue;
        } catch {
          // plain text result
        }
      }
      return seen;
    });
}

/** One sentence per tool result, from fixed templates. */
export function describeResults(results: readonly SeenResult[]): string[] {
  return results.map((r) => {
    if (r.isError) return `The ${r.toolName} tool reported an error: ${r.text}`;
    const json = isJsonObject(r.json) ? r.json : undefined;
    if (r.toolName === "current_time" && json !== undefined) {
      const zone = isJsonObject(json.requested_timezone) ? json.requested_timezone : undefined;
      if (zone !== undefined) {
        const time = String(zone.time);
        return `In ${String(zone.name)} it is ${time.slice(11, 16)} on ${String(zone.weekday)} (${time}).`;
      }
      return `It is ${String(json.utc)} (UTC); local time ${String(json.local)} (${String(json.local_timezone)}).`;
    }
    if (r.toolName === "add") return `The sum is ${r.text}.`;
    if (r.toolName === "calculator" && json !== undefined)
      return `${String(json.expression)} = ${String(json.result)}.`;
    if (r.toolName.endsWith("_agent")) {
      const said = r.text.replace(SCRIPTED_NOTE, "").trim();
      return `The ${r.toolName.replace(/_agent$/, "")} sub-agent says: ${said}`;
    }
    return `The ${r.toolName} tool returned: ${r.text.slice(0, 300)}`;
  });
}

/**
 * Fill a JSON Schema's properties from what the run found (for structured output): strings named
 * like answer/summary get the answer; numbers get the first number found; arrays of strings get the
 * tools used; booleans true. Scripted, like everything the demo model says.
 */
export function fillSchema(schema: JsonObject, answer: string, results: readonly SeenResult[]): JsonObject {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const numbers = results.flatMap((r) =>
    isJsonObject(r.json) && typeof r.json.result === "number"
      ? [r.json.result]
      : /^-?\d+(\.\d+)?$/.test(r.text)
        ? [Number(r.text)]
        : [],
  );
  const out: JsonObject = {};
  for (const [key, raw] of Object.entries(properties)) {
    const prop = isJsonObject(raw) ? raw : {};
    const type = Array.isArray(prop.type) ? prop.type[0] : prop.type;
    if (type === "number" || type === "integer") out[key] = numbers[0] ?? 0;
    else if (type === "boolean") out[key] = true;
    else if (type === "array") out[key] = [...new Set(results.map((r) => r.toolName))];
    else if (Array.isArray(prop.enum) && prop.enum.length > 0) out[key] = prop.enum[0] ?? null;
    else if (/time/i.test(key)) {
      const time = results.find((r) => r.toolName === "current_time");
      const zone =
        time !== undefined && isJsonObject(time.json) && isJsonObject(time.json.requested_timezone)
          ? time.json.requested_timezone
          : undefined;
      out[key] = zone === undefined ? "" : String(zone.time);
    } else out[key] = answer;
  }
  return out;
}
