import { describe, expect, it } from "vitest";
import { assistant, system, toolCall, toolResult, user } from "../../message/constructors.js";
import type { Message } from "../../message/message.js";
import type { CacheSegment, ModelRequest } from "../../model/model-request.js";
import type { ToolSchema } from "../../tool/tool-schema.js";
import { toAnthropicRequest } from "./map-request.js";

const body = (request: ModelRequest) =>
  JSON.parse(
    JSON.stringify(
      toAnthropicRequest(request, { model: "claude-sonnet-4-6", defaultMaxTokens: 1024, stream: false }),
    ),
  );

const EPHEMERAL = { type: "ephemeral" };
const tools: ToolSchema[] = [
  { name: "search", description: "Search", parameters: { type: "object" } },
  { name: "fetch_page", description: "Fetch", parameters: { type: "object" } },
];
const call = toolCall("toolu_1", "search", { q: "x" });
/** system | history (user, assistant+call, tool result) | volatile (user) */
const messages: Message[] = [
  system("Stable instructions."),
  user("Find x."),
  assistant("Searching.", [call]),
  toolResult(call, "result text"),
  user("Now summarise. (time: 12:00)"),
];
const segments: CacheSegment[] = [
  { id: "tools", role: "tools", cacheable: true, messageCount: 0 },
  { id: "system", role: "system", cacheable: true, messageCount: 1 },
  { id: "history", role: "history", cacheable: true, messageCount: 3 },
  { id: "tail", role: "volatile", cacheable: false, messageCount: 1 },
];

/** Paths of every `cache_control` marker, in prefix order (tools -> system -> messages). */
function markers(sent: Record<string, unknown>): string[] {
  const found: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        walk(v, `${path}[${i}]`);
      });
    } else if (typeof value === "object" && value !== null) {
      for (const [key, v] of Object.entries(value)) {
        if (key === "cache_control") found.push(path);
        else walk(v, `${path}.${key}`);
      }
    }
  };
  for (const key of ["tools", "system", "messages"]) walk(sent[key], key);
  return found;
}

describe("prompt-cache breakpoints", () => {
  it("marks the end of each cacheable segment in tools -> system -> messages order, never the volatile tail", () => {
    const sent = body({ messages, tools, cacheSegments: segments });
    expect(sent.tools[1]).toEqual({
      name: "fetch_page",
      description: "Fetch",
      input_schema: { type: "object" },
      cache_control: EPHEMERAL,
    });
    expect(sent.tools[0].cache_control).toBeUndefined();
    expect(sent.system).toEqual([{ type: "text", text: "Stable instructions.", cache_control: EPHEMERAL }]);
    // The tool result and the volatile user text share one user turn; only the tool result is marked.
    expect(sent.messages[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [{ type: "text", text: "result text" }],
          cache_control: EPHEMERAL,
        },
        { type: "text", text: "Now summarise. (time: 12:00)" },
      ],
    });
    expect(markers(sent)).toEqual(["tools[1]", "system[0]", "messages[2].content[0]"]);
  });

  it("places none when promptCache.enabled is false", () => {
    expect(
      markers(body({ messages, tools, cacheSegments: segments, promptCache: { enabled: false } })),
    ).toEqual([]);
  });

  it("uses the 1h TTL for long retention", () => {
    const sent = body({
      messages,
      tools,
      cacheSegments: segments,
      promptCache: { enabled: true, retention: "long" },
    });
    expect(sent.system[0].cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(markers(sent)).toHaveLength(3);
  });

  it("gives each breakpoint its segment's TTL: system and tools 1h, the history tail 5m", () => {
    const mixed: CacheSegment[] = segments.map((s) =>
      s.role === "tools" || s.role === "system"
        ? { ...s, ttl: "1h" }
        : s.role === "history"
          ? { ...s, ttl: "5m" }
          : s,
    );
    const sent = body({ messages, tools, cacheSegments: mixed });
    expect(sent.tools[1].cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(sent.system[0].cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(sent.messages[2].content[0].cache_control).toEqual(EPHEMERAL);
    // A segment without its own TTL takes the policy's (long retention: 1h) — here the history.
    const policyDefault = body({
      messages,
      tools,
      cacheSegments: segments.map((s) => (s.role === "history" ? s : { ...s, ttl: "1h" as const })),
      promptCache: { enabled: true, retention: "long" },
    });
    expect(policyDefault.messages[2].content[0].cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
  });

  it("rejects a 1h breakpoint after a 5m one (the API would answer 400) with a validation error", () => {
    const inverted: CacheSegment[] = segments.map((s) =>
      s.role === "system" ? { ...s, ttl: "5m" } : s.role === "history" ? { ...s, ttl: "1h" } : s,
    );
    let thrown: unknown;
    try {
      body({ messages, cacheSegments: inverted });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: "validation", details: { segment: "history", after: "system" } });
    expect((thrown as Error).message).toMatch(/1h breakpoints before 5m/);
  });

  it("without segments, an enabled cache marks the end of the system prompt (or the last tool)", () => {
    expect(markers(body({ messages, tools, promptCache: { enabled: true } }))).toEqual(["system[0]"]);
    expect(markers(body({ messages: [user("hi")], tools, promptCache: { enabled: true } }))).toEqual([
      "tools[1]",
    ]);
    expect(markers(body({ messages, tools }))).toEqual([]);
  });

  it("keeps at most 4 breakpoints: the three earliest and the last", () => {
    const many: Message[] = [system("s"), user("a"), assistant("b"), user("c"), assistant("d"), user("e")];
    const segs: CacheSegment[] = [
      { id: "tools", role: "tools", cacheable: true, messageCount: 0 },
      { id: "system", role: "system", cacheable: true, messageCount: 1 },
      ...["h1", "h2", "h3", "h4", "h5"].map((id) => ({
        id,
        role: "history" as const,
        cacheable: true,
        messageCount: 1,
      })),
    ];
    const sent = body({ messages: many, tools, cacheSegments: segs });
    expect(markers(sent)).toEqual([
      "tools[1]",
      "system[0]",
      "messages[0].content[0]",
      "messages[4].content[0]",
    ]);
  });

  it("stops at the first non-cacheable segment and skips messages that map to nothing", () => {
    const msgs: Message[] = [user("a"), assistant([]), user("b"), user("c")];
    const segs: CacheSegment[] = [
      { id: "h1", role: "history", cacheable: true, messageCount: 2 },
      { id: "v", role: "volatile", cacheable: true, messageCount: 1 },
      { id: "h2", role: "history", cacheable: true, messageCount: 1 },
    ];
    expect(markers(body({ messages: msgs, cacheSegments: segs }))).toEqual(["messages[0].content[0]"]);
  });

  it("never marks a thinking block: the breakpoint goes on the last markable block", () => {
    const msgs: Message[] = [
      user("q"),
      {
        role: "assistant",
        content: [
          { type: "text", text: "t" },
          { type: "reasoning", text: "r", signature: "sig" },
        ],
        toolCalls: [],
      },
    ];
    const sent = body({
      messages: msgs,
      cacheSegments: [{ id: "h", role: "history", cacheable: true, messageCount: 2 }],
    });
    expect(markers(sent)).toEqual(["messages[1].content[0]"]);
  });
});
