import type { JsonObject, JsonValue } from "@tinyagents/inference";
import type { AgentInput } from "../runtime/agent-input.js";

/** A tool the agent is expected to call: its name, and optionally arguments it must (partially) match. */
export interface ExpectedToolCall {
  name: string;
  /** A partial match: every key given must deep-equal the call's argument (see the testkit's `Trajectory`). */
  arguments?: JsonObject;
}

/**
 * The tool trajectory a case expects. Every part is optional; the trajectory scorer checks the
 * parts that are given, one check each, and scores the fraction that hold.
 */
export interface ExpectedTrajectory {
  /** Tools that must be called (a name, or a name with partial arguments). */
  called?: (string | ExpectedToolCall)[];
  /** Tools that must not be called. */
  notCalled?: string[];
  /** Tool names (or event types such as `tool.completed`) that must occur in this order. */
  order?: string[];
  /** Exact number of logical model calls. */
  modelCalls?: number;
}

/** One case of a dataset: an input and what a good answer looks like. Plain JSON data. */
export interface EvalCase {
  /** Unique within the dataset; reports and comparisons match cases by it. */
  id: string;
  /** A prompt, one message, or several messages. */
  input: AgentInput;
  /** The expected final text (exact, contains and judge scorers read it). */
  expected?: string;
  /** The expected structured value (`run.structured`). */
  expectedStructured?: JsonValue;
  /** The expected tool trajectory. */
  expectedTrajectory?: ExpectedTrajectory;
  metadata?: JsonObject;
  tags?: string[];
}

/** A named list of cases. */
export interface EvalDataset {
  name: string;
  cases: EvalCase[];
}
