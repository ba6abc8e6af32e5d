/**
 * Shared helpers for the loop's acceptance tests (not a test file itself).
 */
import {
  AgentHarness,
  type AgentHarnessOptions,
  type AgentRun,
  type AgentStreamItem,
  EventSink,
  type HarnessRunStatus,
  type RunConfig,
} from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { DeterministicClock, DeterministicIds, EventRecorder } from "@tinyagents/harness/testkit";
import {
  type AssistantMessage,
  type Message,
  type ModelResponse,
  type TinyAgentsError,
  type ToolMessage,
  text,
  usage,
} from "@tinyagents/inference";

/** A harness with a virtual clock and predictable ids. */
export function makeHarness<State = undefined>(options: AgentHarnessOptions<undefined> = {}) {
  const clock = options.clock instanceof DeterministicClock ? options.clock : new DeterministicClock();
  const ids = new DeterministicIds();
  const harness = new AgentHarness<State, undefined>({ ...options, clock, ids });
  return { harness, clock, ids };
}

/** What {@link runCollecting} and {@link runStreaming} return. */
export interface Collected {
  run: AgentRun;
  status: HarnessRunStatus;
  error: TinyAgentsError | undefined;
  events: EventRecorder;
  items: AgentStreamItem[];
}

let runCounter = 0;

/** `invokeCollectingPartial` with an event recorder attached. */
export async function runCollecting<State>(
  harness: AgentHarness<State, undefined>,
  input: string | Message[],
  config: Partial<RunConfig> = {},
  options: { signal?: AbortSignal; state?: State } = {},
): Promise<Collected> {
  const runId = config.runId ?? `run-c${++runCounter}`;
  const events = new EventRecorder();
  const sink = new EventSink(runId);
  events.attach(sink);
  const outcome = await lowerLayer(harness).invokeCollectingPartial(
    options.state as State,
    undefined,
    { ...config, runId },
    input,
    { events: sink, ...(options.signal === undefined ? {} : { signal: options.signal }) },
  );
  return { run: outcome.run, status: outcome.status, error: outcome.error, events, items: [] };
}

/** `invokeStreaming`, collecting every item; the events are recorded from the stream items. */
export async function runStreaming<State>(
  harness: AgentHarness<State, undefined>,
  input: string | Message[],
  config: Partial<RunConfig> = {},
  options: { signal?: AbortSignal; state?: State } = {},
): Promise<Collected> {
  const runId = config.runId ?? `run-s${++runCounter}`;
  const events = new EventRecorder();
  const items: AgentStreamItem[] = [];
  const stream = lowerLayer(harness).invokeStreaming(
    options.state as State,
    undefined,
    { ...config, runId },
    input,
    options.signal === undefined ? {} : { signal: options.signal },
  );
  for await (const item of stream) {
    items.push(item);
    if (item.type === "event") events.listener(item.record);
  }
  const last = items.at(-1);
  if (last === undefined || last.type === "event") throw new Error("stream ended without a terminal item");
  return {
    run: last.run,
    status: last.status,
    error: last.type === "failed" ? last.error : undefined,
    events,
    items,
  };
}

/** The assistant messages of a transcript. */
export function assistants(messages: readonly Message[]): AssistantMessage[] {
  return messages.filter((m): m is AssistantMessage => m.role === "assistant");
}

/** The tool messages of a transcript. */
export function toolMessages(messages: readonly Message[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => m.role === "tool");
}

/** Text of every message, role-prefixed: a compact transcript for equality checks. */
export function transcript(messages: readonly Message[]): string[] {
  return messages.map((m) => `${m.role}:${text(m)}`);
}

/** A usage record with the given input/output token counts. */
export function tokens(inputTokens: number, outputTokens: number) {
  return usage({ inputTokens, outputTokens });
}

/** A full response asking for one tool call whose arguments were unusable JSON text. */
export function invalidArgsResponse(id: string, name: string, raw: string): ModelResponse {
  return {
    message: {
      role: "assistant",
      content: [],
      toolCalls: [{ id, name, arguments: {}, invalid: { raw, error: "not a JSON object" } }],
    },
    finishReason: "tool_calls",
  };
}
