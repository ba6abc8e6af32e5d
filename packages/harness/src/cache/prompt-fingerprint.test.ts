import { assistant, type Message, type ModelRequest, system, toolResult, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { prefixChange, prefixLayout } from "../middleware/prefix-fingerprint.js";
import { canonicalJson } from "./canonical-json.js";
import { replaceHistory } from "./edit-history.js";
import { PromptCacheLayout, promptCacheKey } from "./prompt-cache-layout.js";
import { promptFingerprint, stablePrefixFingerprint, writePromptPrefix } from "./prompt-fingerprint.js";
import { layoutSegments } from "./request-layout.js";
import { defineLazyFingerprint, RunPrefixHasher } from "./run-prefix-hasher.js";

const tools = Object.freeze([
  Object.freeze({ name: "search", description: "search", parameters: { type: "object" } }),
]);

function loopRequest(transcript: Message[], count = transcript.length): ModelRequest {
  return {
    messages: [system("be brief"), ...transcript.slice(0, count), system("now: 1")],
    tools: tools as never,
    cacheSegments: [
      { id: "system", role: "system", cacheable: true, messageCount: 1 },
      { id: "tools", role: "tools", cacheable: true, messageCount: 0 },
      { id: "history", role: "history", cacheable: true, messageCount: count },
      { id: "volatile", role: "volatile", cacheable: false, messageCount: 1 },
    ],
  };
}

describe("canonicalJson", () => {
  it("sorts keys at every level and drops undefined like JSON.stringify", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, undefined, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,null,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson(Number.NaN)).toBe("null");
    expect(canonicalJson(new Date(0))).toBe('"1970-01-01T00:00:00.000Z"');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow(/cycle/);
  });
});

describe("promptFingerprint", () => {
  const transcript: Message[] = [
    user("hi"),
    assistant("", [{ id: "c1", name: "search", arguments: { q: "x" } }]),
    toolResult({ id: "c1", name: "search" }, "found"),
  ];

  it("is the same for equal content whatever the key order, and ignores the volatile tail", () => {
    const a = loopRequest(transcript);
    const b = loopRequest(transcript.map((m) => JSON.parse(JSON.stringify(m)) as Message));
    b.messages[b.messages.length - 1] = system("now: 2");
    expect(promptFingerprint(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(promptFingerprint(a)).toBe(promptFingerprint(b));
    const edited = loopRequest([user("hello"), ...transcript.slice(1)]);
    expect(promptFingerprint(edited)).not.toBe(promptFingerprint(a));
  });

  it("stablePrefixFingerprint is the stable part's fingerprint, without reading the history", () => {
    const request = loopRequest(transcript);
    expect(stablePrefixFingerprint(request)).toBe(writePromptPrefix(request).stableFingerprint);
    expect(stablePrefixFingerprint(request)).toBe(stablePrefixFingerprint(loopRequest([user("other")])));
    expect(stablePrefixFingerprint(request)).not.toBe(promptFingerprint(request));
    // A history message that cannot be serialized is never touched.
    const unreadable = {
      role: "user",
      get content(): never {
        throw new Error("the history was read");
      },
    } as unknown as Message;
    expect(stablePrefixFingerprint(loopRequest([unreadable]))).toBe(stablePrefixFingerprint(request));
    // Without segments the stable part is the tools and the leading system messages.
    const plain: ModelRequest = { messages: [system("be brief"), user("hi")], tools: tools as never };
    expect(stablePrefixFingerprint(plain)).toBe(writePromptPrefix(plain).stableFingerprint);
  });

  it("a grown request cut to its predecessor's length has the predecessor's fingerprint", () => {
    const shorter = loopRequest(transcript, 1);
    const longer = loopRequest(transcript);
    expect(promptFingerprint(longer, { maxMessages: 2 })).toBe(promptFingerprint(shorter));
    expect(PromptCacheLayout.fromRequest(shorter).compare(PromptCacheLayout.fromRequest(longer))).toEqual({
      preserved: true,
    });
    expect(promptCacheKey(shorter)).toBe(promptCacheKey(longer));
  });

  it("RunPrefixHasher gives exactly promptFingerprint, incrementally, and recovers from rewrites", () => {
    const hasher = new RunPrefixHasher();
    const live: Message[] = [];
    for (const message of transcript) {
      live.push(message);
      const request = loopRequest(live);
      expect(hasher.fingerprint("be brief", system("be brief"), tools, live, live.length)).toBe(
        promptFingerprint(request),
      );
    }
    // An older request read after the hasher moved on.
    expect(hasher.fingerprint("be brief", system("be brief"), tools, live, 1)).toBe(
      promptFingerprint(loopRequest(live, 1)),
    );
    // A transcript rewritten in place is noticed through its last message.
    live[2] = toolResult({ id: "c1", name: "search" }, "other");
    expect(hasher.fingerprint("be brief", system("be brief"), tools, live, 3)).toBe(
      promptFingerprint(loopRequest(live)),
    );
  });

  it("defineLazyFingerprint computes on first read, can be overwritten, and serializes", () => {
    let calls = 0;
    const request: ModelRequest = { messages: [user("x")] };
    defineLazyFingerprint(request, () => {
      calls++;
      return "f";
    });
    expect(calls).toBe(0);
    expect(JSON.parse(JSON.stringify(request))).toEqual({ messages: [user("x")], promptFingerprint: "f" });
    expect(request.promptFingerprint).toBe("f");
    expect(calls).toBe(1);
    request.promptFingerprint = "g";
    expect(structuredClone(request).promptFingerprint).toBe("g");
  });

  it("lays out requests without segments: tools, leading system, history up to the last user turn, tail", () => {
    const request: ModelRequest = {
      messages: [system("s"), user("a"), assistant("b"), user("c"), assistant("d")],
      tools: [...tools],
    };
    expect(layoutSegments(request).map((s) => [s.id, s.start, s.end, s.inPrefix])).toEqual([
      ["tools", 0, 0, true],
      ["system", 0, 1, true],
      ["history", 1, 3, true],
      ["tail", 3, 5, false],
    ]);
  });

  it("the middleware-stack snapshot fingerprint equals promptFingerprint and names the changed segment", () => {
    const request = loopRequest(transcript);
    const before = prefixLayout(request);
    expect(before.fingerprint).toBe(promptFingerprint(request));
    expect(prefixChange(before, prefixLayout(request))).toBeUndefined();
    const trimmed = replaceHistory(request, transcript.slice(0, 1));
    const change = prefixChange(before, prefixLayout(trimmed));
    expect(change?.segment).toBe("history");
    expect(change?.after).toBe(promptFingerprint(trimmed));
    expect(trimmed.cacheSegments?.find((s) => s.id === "history")?.messageCount).toBe(1);
    const system2 = { ...request, messages: [system("be terse"), ...request.messages.slice(1)] };
    expect(prefixChange(before, prefixLayout(system2))?.segment).toBe("system");
  });
});
