import type { ErrorCode, JsonObject, JsonValue } from "@tinyagents/inference";
import type { AgentEventOf, EventRecord } from "../contracts/agent-event.js";
import { describeRecords, recordLabel } from "./trajectory-format.js";

/**
 * Selects tool calls by their arguments: a partial object (every key given must deep-match; nested
 * objects match partially, arrays must have the same length and match element-wise) or a predicate.
 */
export type ArgsMatcher = JsonObject | ((args: JsonObject) => boolean);

/** A tool call as seen in the event stream (from `tool.started`). */
export interface ObservedToolCall {
  name: string;
  arguments: JsonObject;
  callId: string;
  runId: string;
}

/**
 * A failed trajectory assertion. `name` is `"AssertionError"` so test runners report it as a
 * failed expectation; the message ends with the actual event sequence.
 */
export class TrajectoryAssertionError extends Error {
  /** The compact actual event sequence the assertion ran against. */
  readonly actualSequence: string;

  constructor(message: string, actualSequence: string) {
    super(`${message}\nActual events: ${actualSequence}`);
    this.name = "AssertionError";
    this.actualSequence = actualSequence;
  }
}

type TerminalEvent =
  | AgentEventOf<"run.completed">
  | AgentEventOf<"run.failed">
  | AgentEventOf<"run.interrupted">;

/**
 * Assertions over a run's event records: which tools ran with which arguments, how many model
 * calls were made, in which order things happened, how the run ended.
 *
 * Records of every run in the list count (a sub-agent's tool calls included) unless narrowed with
 * {@link Trajectory.forRun}; `assertCompleted`/`assertFailed` look at the root run (the run of the
 * shallowest record). Every failed assertion throws a {@link TrajectoryAssertionError} showing the
 * actual sequence, for example `run.started → model.started → tool:search → tool.completed(search)`.
 */
export class Trajectory {
  /** The records this trajectory is about, in emission order. */
  readonly records: readonly EventRecord[];

  private constructor(records: readonly EventRecord[]) {
    this.records = records;
  }

  /** A trajectory over a copy of `records` (records appended later are not seen). */
  static from(records: readonly EventRecord[]): Trajectory {
    return new Trajectory([...records]);
  }

  /** The same trajectory restricted to one run's own records (children excluded). */
  forRun(runId: string): Trajectory {
    return new Trajectory(this.records.filter((record) => record.runId === runId));
  }

  /** One compact label per record, for example `tool:search` or `run.failed(timeout)`. */
  labels(): string[] {
    return this.records.map(recordLabel);
  }

  /** The compact sequence used in failure messages (repeats collapsed, long runs elided). */
  describe(): string {
    return describeRecords(this.records);
  }

  /** Every tool call started, in order, optionally only those of tool `name`. */
  toolCalls(name?: string): ObservedToolCall[] {
    const calls: ObservedToolCall[] = [];
    for (const record of this.records) {
      const event = record.event;
      if (event.type !== "tool.started" || (name !== undefined && event.toolName !== name)) continue;
      calls.push({
        name: event.toolName,
        arguments: event.arguments,
        callId: event.callId,
        runId: record.runId,
      });
    }
    return calls;
  }

  /** How many tool calls started (of tool `name`, when given). */
  toolCallCount(name?: string): number {
    return this.toolCalls(name).length;
  }

  /**
   * How many logical model calls were made: distinct `callId`s of `model.started`. Retries and
   * fallbacks of one call share its `callId` (they are further `model.started` events with the
   * same id) and are not counted again. Use {@link modelAttemptCount} to count every attempt.
   */
  modelCallCount(): number {
    const ids = new Set<string>();
    for (const record of this.records)
      if (record.event.type === "model.started") ids.add(record.event.callId);
    return ids.size;
  }

  /** Every `model.started`, retries and fallbacks included. */
  modelAttemptCount(): number {
    return this.records.filter((record) => record.event.type === "model.started").length;
  }

  /** Asserts tool `name` was called (with arguments matching `args`, when given); returns the first match. */
  assertToolCalled(name: string, args?: ArgsMatcher): ObservedToolCall {
    const calls = this.toolCalls(name);
    if (calls.length === 0) {
      const called = [...new Set(this.toolCalls().map((call) => call.name))];
      const tools = called.length === 0 ? "no tool was called" : `tools called: ${called.join(", ")}`;
      this.fail(`expected tool "${name}" to be called, but it never was (${tools})`);
    }
    if (args === undefined) return calls[0] as ObservedToolCall;
    const match = calls.find((call) => matchesArgs(args, call.arguments));
    if (match === undefined) {
      const wanted = typeof args === "function" ? "matching the predicate" : `matching ${compactJson(args)}`;
      const seen = calls.map((call) => `  ${call.callId}: ${compactJson(call.arguments)}`).join("\n");
      this.fail(
        `expected tool "${name}" to be called with arguments ${wanted}; its ${calls.length} call(s) had:\n${seen}`,
      );
    }
    return match;
  }

  /** Asserts tool `name` was never called. */
  assertToolNotCalled(name: string): void {
    const calls = this.toolCalls(name);
    if (calls.length > 0) {
      const ids = calls.map((call) => call.callId).join(", ");
      this.fail(
        `expected tool "${name}" not to be called, but it was called ${calls.length} time(s) (${ids})`,
      );
    }
  }

  /** Asserts tool `name` was called exactly `times` times. */
  assertToolCalledTimes(name: string, times: number): void {
    const count = this.toolCallCount(name);
    if (count !== times)
      this.fail(`expected tool "${name}" to be called ${times} time(s), but it was called ${count}`);
  }

  /** Asserts exactly `times` logical model calls (see {@link modelCallCount}). */
  assertModelCalledTimes(times: number): void {
    const count = this.modelCallCount();
    if (count !== times) {
      const attempts = this.modelAttemptCount();
      const extra = attempts === count ? "" : ` (${attempts} attempts including retries/fallbacks)`;
      this.fail(`expected ${times} model call(s), but there were ${count}${extra}`);
    }
  }

  /**
   * Asserts `labels` occur in this order (other events may come between: a subsequence match).
   * A label is an event type (`"tool.completed"`, anything with a dot), `"tool:<name>"`, or a
   * bare tool name; the last two match the `tool.started` of that tool.
   */
  assertOrder(labels: readonly string[]): void {
    let position = 0;
    for (const [i, label] of labels.entries()) {
      const found = this.records.findIndex(
        (record, index) => index >= position && matchesLabel(label, record),
      );
      if (found < 0) {
        const matched = labels.slice(0, i);
        const after = matched.length === 0 ? "" : ` after ${matched.join(" → ")}`;
        this.fail(`expected order ${labels.join(" → ")}, but found no "${label}"${after}`);
      }
      position = found + 1;
    }
  }

  /** Asserts the root run completed; returns its `run.completed` event. */
  assertCompleted(): AgentEventOf<"run.completed"> {
    const end = this.terminal();
    if (end?.type === "run.completed") return end;
    this.fail(`expected the run to complete, but ${endDescription(end)}`);
  }

  /** Asserts the root run failed (with error code `code`, when given); returns its `run.failed` event. */
  assertFailed(code?: ErrorCode): AgentEventOf<"run.failed"> {
    const end = this.terminal();
    if (end?.type !== "run.failed") {
      this.fail(
        `expected the run to fail${code === undefined ? "" : ` with "${code}"`}, but ${endDescription(end)}`,
      );
    }
    if (code !== undefined && end.error.code !== code) {
      this.fail(
        `expected the run to fail with "${code}", but it failed with "${end.error.code}": ${end.error.message}`,
      );
    }
    return end;
  }

  private terminal(): TerminalEvent | undefined {
    let root: EventRecord | undefined;
    for (const record of this.records) if (root === undefined || record.depth < root.depth) root = record;
    if (root === undefined) return undefined;
    let end: TerminalEvent | undefined;
    for (const record of this.records) {
      const event = record.event;
      if (record.runId !== root.runId) continue;
      if (event.type === "run.completed" || event.type === "run.failed" || event.type === "run.interrupted")
        end = event;
    }
    return end;
  }

  private fail(message: string): never {
    throw new TrajectoryAssertionError(message, this.describe());
  }
}

function endDescription(end: TerminalEvent | undefined): string {
  if (end === undefined) return "it has no run.completed/run.failed/run.interrupted event (did it finish?)";
  if (end.type === "run.completed") return "it completed";
  if (end.type === "run.failed") return `it failed with "${end.error.code}": ${end.error.message}`;
  return `it was interrupted: ${end.reason}`;
}

function matchesLabel(label: string, record: EventRecord): boolean {
  const event = record.event;
  if (label.startsWith("tool:")) return event.type === "tool.started" && event.toolName === label.slice(5);
  if (label.includes(".")) return event.type === label;
  return event.type === "tool.started" && event.toolName === label;
}

function matchesArgs(matcher: ArgsMatcher, args: JsonObject): boolean {
  return typeof matcher === "function" ? matcher(args) : partialMatch(matcher, args);
}

/** Deep partial match: objects match on the expected keys, arrays element-wise with equal length. */
function partialMatch(expected: JsonValue, actual: JsonValue | undefined): boolean {
  if (expected === null || typeof expected !== "object") return Object.is(expected, actual);
  if (actual === null || actual === undefined || typeof actual !== "object") return false;
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, i) => partialMatch(item, actual[i]))
    );
  }
  if (Array.isArray(actual)) return false;
  return Object.entries(expected).every(([key, value]) => partialMatch(value, actual[key]));
}

function compactJson(value: JsonValue): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 200 ? `${json.slice(0, 197)}...` : json;
}
