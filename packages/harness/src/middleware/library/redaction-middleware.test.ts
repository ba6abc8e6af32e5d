import { type Message, type ModelRequest, text, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { toolMessages } from "../../../test/helpers.js";
import { runText } from "../../agent-loop/agent-run.js";
import { InMemoryResponseCache } from "../../cache/in-memory-response-cache.js";
import type { RunContext } from "../../contracts/run-context.js";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { StreamingMock } from "../../testkit/streaming-mock.js";
import { runAgent, setup } from "./harness.fixture.js";
import { redactionMiddleware } from "./redaction-middleware.js";
import { DEFAULT_REDACTION_PATTERNS, luhn } from "./redaction-patterns.js";
import { TextRedactor } from "./text-redactor.js";

const KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";

describe("redactionMiddleware", () => {
  it("redacts what is sent to the model, keeping the transcript intact", async () => {
    const { harness } = setup();
    const model = new ScriptedModel(["noted"]);
    const redaction = redactionMiddleware();
    harness.registerModel("m", model).use(redaction);
    const input = `I am bob@example.com and my key is ${KEY}`;
    const { run, error } = await runAgent(harness, input);
    expect(error).toBeUndefined();
    expect(text(model.requests[0]?.messages[0])).toBe(
      "I am [REDACTED:email] and my key is [REDACTED:api_key]",
    );
    expect(text(run.messages[0])).toBe(input);
    expect(redaction.redactions).toBe(2);
  });

  it("redacts streamed text deltas before consumers see them, and the stored answer", async () => {
    const { harness } = setup();
    // The address sits wholly in the second streamed piece.
    const answer = `${"x".repeat(40)} write to alice@example.org`;
    harness.registerModel("m", new ScriptedModel([answer])).use(redactionMiddleware());
    const { run, events } = await runAgent(harness, "hi", { streaming: true });
    const streamed = events.ofType("model.text_delta").map((e) => e.text);
    expect(streamed.join("")).not.toContain("alice@example.org");
    expect(streamed.join("")).toContain("[REDACTED:email]");
    expect(runText(run)).toBe(`${"x".repeat(40)} write to [REDACTED:email]`);
  });

  it("catches a secret split across two deltas in the stored answer", async () => {
    const { harness } = setup();
    const answer = `${"y".repeat(10)} carol@example.com ${"z".repeat(9)}`; // the midpoint falls inside the address
    harness.registerModel("m", new ScriptedModel([answer])).use(redactionMiddleware());
    const { run } = await runAgent(harness, "hi", { streaming: true });
    expect(runText(run)).toBe(`${"y".repeat(10)} [REDACTED:email] ${"z".repeat(9)}`);
  });

  describe("a secret split across streamed deltas", () => {
    const prose = "Here is the configuration you asked for, with every setting explained in turn. ";
    const answer = `${prose}${prose}export OPENAI_API_KEY=${KEY} then restart the service. ${prose}`;
    const expected = answer.replace(KEY, "[REDACTED:api_key]");
    const keyAt = answer.indexOf(KEY);

    /** True when `out` holds any 6-character run of the key. */
    const leaks = (out: string) => {
      for (let i = 0; i + 6 <= KEY.length; i++) if (out.includes(KEY.slice(i, i + 6))) return true;
      return false;
    };

    async function streamed(model: StreamingMock, options: Parameters<typeof redactionMiddleware>[0] = {}) {
      const { harness } = setup({ policy: { retry: { maxRetries: 0 } } });
      harness.registerModel("m", model).use(redactionMiddleware(options));
      const ran = await runAgent(harness, "hi", { streaming: true });
      const deltas = ran.events.ofType("model.text_delta").map((e) => e.text);
      return { ...ran, deltas };
    }

    async function expectRedacted(chunks: string[]) {
      const { run, error, events, deltas } = await streamed(StreamingMock.fromTextChunks(chunks));
      const where = `chunks ${JSON.stringify(chunks.map((c) => c.length))}`;
      expect(error, where).toBeUndefined();
      for (const delta of deltas) expect(leaks(delta), where).toBe(false);
      expect(leaks(JSON.stringify(events.records)), where).toBe(false);
      expect(deltas.join(""), where).toBe(expected);
      // The stored answer is exactly what consumers saw.
      expect(runText(run), where).toBe(deltas.join(""));
    }

    it("split at every position across two deltas, the key reaches no delta, event or answer", async () => {
      for (let i = keyAt - 1; i <= keyAt + KEY.length + 1; i++) {
        await expectRedacted([answer.slice(0, i), answer.slice(i)]);
      }
    });

    // Every pair of split positions is proven on the StreamRedactor itself (stream-redactor.test.ts,
    // no agent run per case); here each first split point is paired with a second one right after
    // it, in the middle of the rest and at the key's end, which is what the wiring can get wrong.
    it("split at pairs of positions across three deltas, the key reaches no delta, event or answer", async () => {
      const end = keyAt + KEY.length;
      for (let i = keyAt; i < end; i++) {
        for (const j of new Set([i + 1, Math.floor((i + 1 + end) / 2), end])) {
          await expectRedacted([answer.slice(0, i), answer.slice(i, j), answer.slice(j)]);
        }
      }
    });

    it("ordinary text passes unchanged and in order; the held tail is flushed when the stream ends", async () => {
      const text = `${prose}${prose}${prose}`;
      const words = text.split(/(?<= )/);
      const { run, events, deltas } = await streamed(StreamingMock.fromTextChunks(words), {
        deltaHoldback: 64,
      });
      expect(deltas.join("")).toBe(text);
      expect(runText(run)).toBe(text);
      // Held pieces are not sent at all (no empty deltas); the flushed tail comes last.
      expect(deltas.every((d) => d !== "")).toBe(true);
      expect(deltas.length).toBeLessThan(words.length + 1);
      const flushed = deltas.at(-1) ?? "";
      expect(flushed.length).toBeGreaterThan(0);
      expect(flushed.length).toBeLessThanOrEqual(64 + 16 + Math.max(...words.map((w) => w.length)));
      // Text came out while the model was still streaming, not only at the end.
      const types = events.types();
      const firstText = events.records.findIndex(
        (r) => r.event.type === "model.text_delta" && r.event.text !== "",
      );
      expect(firstText).toBeGreaterThan(-1);
      expect(firstText).toBeLessThan(types.indexOf("model.completed"));
      // The tail is released when the stream ends, before the call completes.
      expect(types.lastIndexOf("model.text_delta")).toBeLessThan(types.indexOf("model.completed"));
    });

    it("a cached streamed answer keeps its released tail", async () => {
      const text = `${prose}${prose}${prose}`;
      const words = text.split(/(?<= )/);
      const { harness } = setup();
      const model = StreamingMock.fromTextChunks(words);
      harness
        .registerModel("m", model)
        .use(redactionMiddleware({ deltaHoldback: 64 }))
        .withResponseCache(new InMemoryResponseCache());
      const first = await runAgent(harness, "hi", { streaming: true });
      const second = await runAgent(harness, "hi", { streaming: true });
      expect(runText(first.run)).toBe(text);
      // Served from the cache (replayed as deltas), with nothing cut off.
      expect(second.events.ofType("model.completed").map((e) => e.servedFromCache)).toEqual([true]);
      expect(runText(second.run)).toBe(text);
      const replayed = second.events.ofType("model.text_delta").map((e) => e.text);
      expect(replayed.join("")).toBe(text);
    });

    it("a stream that fails flushes what it held, redacted", async () => {
      const received = `${prose}${prose}key ${KEY} and`;
      const split = received.indexOf(KEY) + 5;
      const model = new StreamingMock([
        [
          { type: "start" },
          { type: "text_delta", text: received.slice(0, split) },
          { type: "text_delta", text: received.slice(split) },
          { type: "error", message: "connection reset", retryable: false },
        ],
      ]);
      const { error, deltas } = await streamed(model);
      expect(error?.message).toContain("connection reset");
      for (const delta of deltas) expect(leaks(delta)).toBe(false);
      expect(deltas.join("")).toBe(received.replace(KEY, "[REDACTED:api_key]"));
    });

    it("rejects a deltaHoldback that is not a positive integer", () => {
      expect(() => redactionMiddleware({ deltaHoldback: 0 })).toThrow(/deltaHoldback/);
      expect(() => redactionMiddleware({ deltaHoldback: 1.5 })).toThrow(/deltaHoldback/);
    });
  });

  it("redacts tool results (text and JSON) before the model sees them", async () => {
    const { harness } = setup();
    const model = new ScriptedModel([{ toolCalls: [{ name: "env" }, { name: "user" }] }, "done"]);
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("env", "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789"))
      .registerTool(FakeTool.returning("user", { name: "Dan", contact: { email: "dan@example.net" } }))
      .use(redactionMiddleware());
    const { run } = await runAgent(harness, "hi");
    const [env, user] = toolMessages(run.messages);
    expect(text(env)).toBe("GITHUB_TOKEN=[REDACTED:github_token]");
    expect(user?.content).toEqual([
      { type: "json", value: { name: "Dan", contact: { email: "[REDACTED:email]" } } },
    ]);
  });

  it("supports custom patterns and masks; the card pattern is Luhn-checked", () => {
    const redactor = new TextRedactor(
      "redaction",
      [...DEFAULT_REDACTION_PATTERNS, { name: "order", pattern: /ORD-\d{6}/ }],
      () => "***",
    );
    expect(redactor.text("order ORD-123456, card 4111 1111 1111 1111, not a card 1234 5678 9012 3456")).toBe(
      "order ***, card ***, not a card 1234 5678 9012 3456",
    );
    expect(luhn("4111111111111111")).toBe(true);
    // Idempotent: masks are never matched again.
    const once = redactor.text(`key ${KEY}`);
    expect(redactor.text(once)).toBe(once);
  });

  it("scans a clean tool result once: not again when its message is sent to the model", async () => {
    const { harness } = setup();
    const model = new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "done"]);
    // The validator runs on every match of its pattern in every text scanned, and keeps them all.
    const scanned: string[] = [];
    const order = {
      name: "order",
      pattern: /ORD-\d{6}/,
      validate: (match: string) => {
        scanned.push(match);
        return false;
      },
    };
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("t", "shipped ORD-123456"))
      .use(redactionMiddleware({ extraPatterns: [order] }));
    const { error } = await runAgent(harness, "where is my order?");
    expect(error).toBeUndefined();
    expect(text(model.requests[1]?.messages.at(-1))).toBe("shipped ORD-123456");
    expect(scanned).toEqual(["ORD-123456"]);
  });

  it("redacts each request of a run as it is now: messages replaced or dropped since the last call", () => {
    const redaction = redactionMiddleware();
    const ctxOf = () => ({ state: undefined, run: {} as RunContext<unknown> });
    const ctx = ctxOf();
    const send = (messages: Message[], on = ctx) =>
      (redaction.beforeModel?.(on, { messages }) as ModelRequest | undefined)?.messages.map(text);
    const first = user("I am bob@example.com");
    expect(send([first])).toEqual(["I am [REDACTED:email]"]);
    // Another message at the same position: scanned, not answered from the previous call.
    expect(send([user("nothing here")])).toBeUndefined();
    expect(send([user("nothing here"), user(`key ${KEY}`)])).toEqual([
      "nothing here",
      "key [REDACTED:api_key]",
    ]);
    // The history shrank, then grew again with the first message back at position 0.
    expect(send([user("nothing here")])).toBeUndefined();
    expect(send([first, user("ok")])).toEqual(["I am [REDACTED:email]", "ok"]);
    // Another run of the same middleware keeps its own memory.
    expect(send([user("clean")], ctxOf())).toBeUndefined();
    expect(send([first, user("ok")])).toEqual(["I am [REDACTED:email]", "ok"]);
  });

  it("scans a message once per run, also after the history shifted (trimmed: every message moved)", () => {
    const scanned: string[] = [];
    const order = {
      name: "order",
      pattern: /ORD-\d{6}/,
      validate: (match: string) => {
        scanned.push(match);
        return match === "ORD-000001";
      },
    };
    const redaction = redactionMiddleware({ patterns: [order] });
    const ctx = { state: undefined, run: {} as RunContext<unknown> };
    const send = (messages: Message[]) =>
      ((redaction.beforeModel?.(ctx, { messages }) as ModelRequest | undefined)?.messages ?? messages).map(
        text,
      );
    const [a, b, c, d] = ["ORD-000001", "ORD-000002", "ORD-000003", "ORD-000004"].map((o) =>
      user(`order ${o}`),
    );
    expect(send([a, b] as Message[])).toEqual(["order [REDACTED:order]", "order ORD-000002"]);
    expect(send([a, b, c] as Message[])).toEqual([
      "order [REDACTED:order]",
      "order ORD-000002",
      "order ORD-000003",
    ]);
    // Trimmed: the first message dropped, every other one a position earlier, one new.
    expect(send([b, c, d] as Message[])).toEqual([
      "order ORD-000002",
      "order ORD-000003",
      "order ORD-000004",
    ]);
    expect(send([a, c, d] as Message[])).toEqual([
      "order [REDACTED:order]",
      "order ORD-000003",
      "order ORD-000004",
    ]);
    expect(scanned).toEqual(["ORD-000001", "ORD-000002", "ORD-000003", "ORD-000004"]);
  });

  it("masks with custom patterns that cannot be scanned together (flags, backreferences)", () => {
    const redactor = new TextRedactor(
      "redaction",
      [
        ...DEFAULT_REDACTION_PATTERNS,
        { name: "pin", pattern: /\b(\d)\1{3}\b/ },
        { name: "codename", pattern: /project\s+falcon/i },
      ],
      (name) => `[${name}]`,
    );
    expect(redactor.text("pin 7777 for PROJECT Falcon, mail eve@example.com")).toBe(
      "pin [pin] for [codename], mail [email]",
    );
    expect(redactor.text("pin 7778, project eagle")).toBe("pin 7778, project eagle");
    const backrefs = new TextRedactor("redaction", [{ name: "pin", pattern: /\b(\d)\1{3}\b/ }], () => "*");
    expect(backrefs.text("1111 and 1234")).toBe("* and 1234");
  });

  it("rejects malformed patterns at construction", () => {
    expect(() => redactionMiddleware({ patterns: [{ name: "all", pattern: /x*/ }] })).toThrow(
      expect.objectContaining({
        code: "validation",
        details: { middleware: "redaction", option: "patterns[0].pattern" },
      }),
    );
    expect(() => redactionMiddleware({ extraPatterns: [{ name: "bad", pattern: "abc" as never }] })).toThrow(
      /pattern/,
    );
    expect(() => redactionMiddleware({ patterns: [] })).toThrow(/at least one/);
  });
});
