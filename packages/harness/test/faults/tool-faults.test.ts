/**
 * Tool faults through the loop, unary and streaming. A bad tool never breaks the transcript:
 * every call gets an answer (an error result the model can read) unless the tool's or the run's
 * policy says to fail the run, in which case the run fails with the documented code and keeps
 * everything up to the failing turn.
 */
import {
  type AnyTool,
  largeResultHandoff,
  type Middleware,
  type RunPolicyInput,
  tool,
  toolPolicyMiddleware,
} from "@tinyagents/harness";
import { ResultHandoffCache } from "@tinyagents/harness/handoff";
import { FakeTool, ScriptedModel, type ScriptStep } from "@tinyagents/harness/testkit";
import { ToolTimeoutSettings } from "@tinyagents/harness/tool";
import { type ErrorCode, type JsonObject, type Message, type ToolMessage, text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import {
  BOTH_PATHS,
  eventsOf,
  expectCompletedRun,
  expectFailedRun,
  type FaultRun,
  runFault,
} from "./fault-kit.js";

const strictSearch = () =>
  tool({
    name: "search",
    description: "Search for a query.",
    inputSchema: {
      type: "object",
      properties: { q: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1 } },
      required: ["q"],
      additionalProperties: false,
    },
    execute: (args) => `results for ${String(args.q)}`,
  });

/** The documented outcome of a tool fault. */
type ToolFaultOutcome =
  | {
      /** The run recovers: the model gets an error result whose text contains this. */
      recovers: string;
      /** The event that reports the fault. */
      event: "tool.failed" | "tool.completed" | "tool.invalid_args" | "tool.unknown";
      /** The tool's `execute` ran (false: the call was answered without running it). */
      executed: boolean;
      /** The tool message is an error result (default true). */
      isError?: boolean;
    }
  | { fails: ErrorCode };

interface ToolFault {
  name: string;
  /** The tool(s) registered; the model calls `call` once. */
  tools: () => AnyTool[];
  call: { name: string; arguments?: JsonObject };
  /** Raw argument text the model sent instead (unparseable arguments). */
  rawArguments?: string;
  policy?: RunPolicyInput;
  middleware?: () => Middleware[];
  outcome: ToolFaultOutcome;
  /** Extra checks on the run. */
  check?: (result: FaultRun, toolMessage: ToolMessage | undefined) => void;
}

let executed = 0;
const counting = <T extends AnyTool>(t: T): T => {
  const execute = t.execute.bind(t);
  return Object.assign(t, {
    execute: (args: never, ctx: never) => {
      executed++;
      return execute(args, ctx);
    },
  });
};

const HUGE = "x".repeat(3 * 1024 * 1024);

const TOOL_FAULTS: readonly ToolFault[] = [
  {
    name: "throws (default policy: the model gets the error)",
    tools: () => [FakeTool.failing("search", "disk on fire")],
    call: { name: "search" },
    outcome: { recovers: 'tool "search" failed: disk on fire', event: "tool.failed", executed: true },
    check: (result) => expect(eventsOf(result, "tool.failed")[0]?.error.code).toBe("tool"),
  },
  {
    name: "throws with errorPolicy fail (the run fails)",
    tools: () => [FakeTool.failing("search", "disk on fire", { errorPolicy: "fail" })],
    call: { name: "search" },
    outcome: { fails: "tool" },
  },
  {
    name: "throws with errorPolicy { message } (internals hidden)",
    tools: () => [
      FakeTool.failing("search", "internal: db01 connection pool exhausted", {
        errorPolicy: { message: "Search is down." },
      }),
    ],
    call: { name: "search" },
    outcome: { recovers: "Search is down.", event: "tool.failed", executed: true },
    check: (_result, message) => expect(text(message)).not.toContain("db01"),
  },
  {
    name: "returns a non-serializable value (a Map)",
    tools: () => [FakeTool.of("search", () => new Map([["a", 1]]) as never)],
    call: { name: "search" },
    outcome: {
      recovers: "returned a non-JSON value: $ is a Map instance",
      event: "tool.completed",
      executed: true,
    },
    check: (result) => expect(eventsOf(result, "tool.completed")[0]?.isError).toBe(true),
  },
  {
    name: "returns a non-serializable value (a cycle)",
    tools: () => [
      FakeTool.of("search", () => {
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        return cyclic as never;
      }),
    ],
    call: { name: "search" },
    outcome: { recovers: "refers back to an enclosing value", event: "tool.completed", executed: true },
  },
  {
    name: "returns nothing (undefined)",
    tools: () => [FakeTool.of("search", () => undefined as never)],
    call: { name: "search" },
    outcome: { recovers: "the tool returned nothing", event: "tool.completed", executed: true },
  },
  {
    name: "hangs past its timeout (honours abort)",
    tools: () => [FakeTool.hanging("search", { timeout: { ms: 50 } })],
    call: { name: "search" },
    outcome: { recovers: 'tool "search" timed out after 50 ms', event: "tool.failed", executed: true },
    check: (result) => expect(eventsOf(result, "tool.failed")[0]?.error.code).toBe("timeout"),
  },
  {
    name: "hangs past its timeout and ignores the abort signal",
    tools: () => [FakeTool.ignoringAbort("search", undefined, { timeout: { ms: 50 } })],
    call: { name: "search" },
    outcome: { recovers: "timed out after 50 ms", event: "tool.failed", executed: true },
  },
  {
    name: "returns a huge result: toolPolicyMiddleware truncates it",
    tools: () => [FakeTool.returning("search", HUGE)],
    call: { name: "search" },
    middleware: () => [toolPolicyMiddleware({ maxResultBytes: 4096 })],
    outcome: {
      recovers: "[truncated: showing 4096 of 3145728 bytes]",
      event: "tool.completed",
      executed: true,
      isError: false,
    },
    check: (_result, message) => expect(text(message).length).toBeLessThan(5000),
  },
  {
    name: "returns a huge result: the handoff middleware offloads it",
    tools: () => [FakeTool.returning("search", HUGE)],
    call: { name: "search" },
    middleware: () => [largeResultHandoff(new ResultHandoffCache({ thresholdBytes: 64 * 1024 }))],
    outcome: { recovers: "handoff-1", event: "tool.completed", executed: true, isError: false },
    check: (_result, message) => expect(text(message).length).toBeLessThan(8000),
  },
  {
    name: "called with invalid arguments (wrong type)",
    tools: () => [counting(strictSearch())],
    call: { name: "search", arguments: { q: 42 } },
    outcome: { recovers: 'invalid arguments for tool "search"', event: "tool.invalid_args", executed: false },
  },
  {
    name: "called with missing arguments",
    tools: () => [counting(strictSearch())],
    call: { name: "search", arguments: { limit: 3 } },
    outcome: { recovers: "q", event: "tool.invalid_args", executed: false },
  },
  {
    name: "called with extra arguments (additionalProperties: false)",
    tools: () => [counting(strictSearch())],
    call: { name: "search", arguments: { q: "x", drop_tables: true } },
    outcome: { recovers: "drop_tables", event: "tool.invalid_args", executed: false },
  },
  {
    name: "called with arguments that are not JSON",
    tools: () => [counting(strictSearch())],
    call: { name: "search" },
    rawArguments: '{"q": "x", ',
    outcome: { recovers: "not valid JSON", event: "tool.invalid_args", executed: false },
  },
  {
    name: "called with invalid arguments under invalidArgs: fail",
    tools: () => [counting(strictSearch())],
    call: { name: "search", arguments: { q: 42 } },
    policy: { invalidArgs: "fail" },
    outcome: { fails: "validation" },
  },
  {
    name: "unknown tool (default: the model gets the list of tools)",
    tools: () => [counting(strictSearch())],
    call: { name: "serach", arguments: { q: "x" } },
    outcome: {
      recovers: 'unknown tool "serach". Available tools: search',
      event: "tool.unknown",
      executed: false,
    },
  },
  {
    name: "unknown tool under unknownTool: fail",
    tools: () => [counting(strictSearch())],
    call: { name: "serach", arguments: { q: "x" } },
    policy: { unknownTool: "fail" },
    outcome: { fails: "tool_not_found" },
  },
];

function script(fault: ToolFault): ScriptStep[] {
  if (fault.rawArguments === undefined) return [{ toolCalls: [fault.call] }, "done"];
  const raw = fault.rawArguments;
  const turn: Message = {
    role: "assistant",
    content: [],
    toolCalls: [
      { id: "call-raw", name: fault.call.name, arguments: {}, invalid: { raw, error: "Unexpected end" } },
    ],
  };
  return [{ message: turn, finishReason: "tool_calls" }, "done"];
}

describe.each(BOTH_PATHS)("tool faults (%s)", (_path, streaming) => {
  it.each(TOOL_FAULTS.map((f) => [f.name, f] as const))("%s", async (_name, fault) => {
    executed = 0;
    const result = await runFault({
      models: { scripted: new ScriptedModel(script(fault)) },
      streaming,
      tools: fault.tools(),
      middleware: fault.middleware?.() ?? [],
      ...(fault.policy === undefined ? {} : { policy: fault.policy }),
      // Explicit tool timeouts as given (no 1 s floor, no grace), so "hangs past 50 ms" is quick.
      toolTimeouts: new ToolTimeoutSettings(120_000, 1, 3_600_000, 0),
    });
    const toolMessage = result.run.messages.find((m): m is ToolMessage => m.role === "tool");
    if ("fails" in fault.outcome) {
      // The failing turn's assistant message is kept; no tool result was invented for it.
      expectFailedRun(result, { code: fault.outcome.fails, transcript: ["user", "assistant"] });
    } else {
      expectCompletedRun(result, ["user", "assistant", "tool", "assistant"]);
      expect(toolMessage?.isError).toBe(fault.outcome.isError ?? true);
      expect(text(toolMessage)).toContain(fault.outcome.recovers);
      expect(eventsOf(result, fault.outcome.event)).toHaveLength(1);
      if (!fault.outcome.executed) {
        expect(executed).toBe(0);
        expect(eventsOf(result, "tool.started")).toHaveLength(0);
      }
    }
    fault.check?.(result, toolMessage);
  });
});
