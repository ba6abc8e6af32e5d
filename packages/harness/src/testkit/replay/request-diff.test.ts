import { describe, expect, it } from "vitest";
import type { CassetteRequest } from "./cassette.js";
import { type DiffTolerances, describeDifference, diffRequests } from "./request-diff.js";

const base = (): CassetteRequest => ({
  system: "line one\nline two\nline three",
  messages: [
    { role: "user", parts: [{ type: "text", content: "Weather at 2026-12-07T10:00:00Z?" }] },
    {
      role: "assistant",
      parts: [{ type: "tool_call", id: "call_7", name: "weather", arguments: { city: "Tokyo" } }],
    },
    { role: "tool", parts: [{ type: "tool_call_response", id: "call_7", response: "clear" }] },
  ],
  tools: [
    {
      type: "function",
      name: "weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  ],
  parameters: { temperature: 0.2, tools: 1 },
});
const none: DiffTolerances = { ignore: [], mask: [] };

/** The one-line descriptions of every difference, first first. */
function lines(expected: CassetteRequest, actual: CassetteRequest, tolerances = none): string[] {
  return diffRequests(expected, actual, tolerances).map((d) => describeDifference(d, expected, actual));
}

describe("diffRequests / describeDifference", () => {
  it("names the system prompt line that changed", () => {
    const actual = { ...base(), system: "line one\nline 2\nline three" };
    expect(lines(base(), actual)).toEqual(['system prompt changed (line 2): was "line two", now "line 2"']);
  });

  it("names a tool parameter added, with the tool", () => {
    const actual = base();
    actual.tools = [
      {
        type: "function",
        name: "weather",
        parameters: { type: "object", properties: { city: { type: "string" }, units: { type: "string" } } },
      },
    ];
    expect(lines(base(), actual)).toEqual([
      'tools[0].parameters.properties.units added: {"type":"string"} (tool "weather")',
    ]);
  });

  it("names the message and the tool result that differ, and messages added or removed", () => {
    const changed = base();
    changed.messages[2] = {
      role: "tool",
      parts: [{ type: "tool_call_response", id: "call_7", response: "rain" }],
    };
    expect(lines(base(), changed)).toEqual([
      'message 3 differs: tool result of call_7: messages[2].parts[0].response changed: was "clear", now "rain"',
    ]);
    const shorter = { ...base(), messages: base().messages.slice(0, 2) };
    expect(lines(base(), shorter)).toEqual(["message 3 removed: tool result of call_7"]);
    const longer = base();
    longer.messages.push({ role: "user", parts: [{ type: "text", content: "and Osaka?" }] });
    expect(lines(base(), longer)).toEqual(["message 4 added: user message"]);
  });

  it("shows a long text from just before its first change, so a late change is visible", () => {
    const long = `${"x".repeat(200)} sky=clear ${"y".repeat(200)}`;
    const expected = base();
    expected.messages[2] = {
      role: "tool",
      parts: [{ type: "tool_call_response", id: "call_7", response: long }],
    };
    const actual = base();
    actual.messages[2] = {
      role: "tool",
      parts: [{ type: "tool_call_response", id: "call_7", response: long.replace("clear", "rain") }],
    };
    const [line] = lines(expected, actual);
    expect(line).toMatch(/changed: was …x{10,24} sky=clear y+…, now …x{10,24} sky=rain y+…$/);
  });

  it("reports settings and keeps document order (system, tools, messages, parameters)", () => {
    const actual = { ...base(), system: "other", parameters: { temperature: 0.7, tools: 1 } };
    expect(lines(base(), actual)).toEqual([
      'system prompt changed (line 1): was "line one", now "other"',
      "parameters.temperature changed: was 0.2, now 0.7",
    ]);
  });

  it("ignores paths (with * for any index or key) and masks values in strings", () => {
    const actual = base();
    actual.messages[0] = {
      role: "user",
      parts: [{ type: "text", content: "Weather at 2026-12-08T11:30:00Z?" }],
    };
    actual.parameters = { temperature: 0.9, tools: 1 };
    expect(lines(base(), actual)).toHaveLength(2);
    expect(
      lines(base(), actual, { ignore: ["messages[*].parts[*].content", "parameters.temperature"], mask: [] }),
    ).toEqual([]);
    const masked = { ignore: ["parameters"], mask: [/\d{4}-\d{2}-\d{2}T[0-9:.]+Z/g] };
    expect(lines(base(), actual, masked)).toEqual([]);
  });
});
