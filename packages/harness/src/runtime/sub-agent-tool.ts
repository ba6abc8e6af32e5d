import { type JsonObject, TinyAgentsError } from "@tinyagents/inference";
import { runText } from "../agent-loop/agent-run.js";
import { assertObjectSchema, type CompiledSchema, compileSchema } from "../tool/json-schema-validator.js";
import type {
  ArgsValidation,
  Tool,
  ToolExecutionContext,
  ToolOutput,
  ToolReturn,
  ToolTimeout,
} from "../tool/tool.js";
import { assertToolName } from "../tool/tool-name.js";
import type { AgentInput } from "./agent-input.js";
import type { SubAgent } from "./sub-agent.js";

/** The argument a SubAgentTool reads its input from by default. */
export const SUBAGENT_INPUT_FIELD = "input";

/** Error codes of a child run that mean "it hit a limit", answered with an error result. */
const LIMIT_CODES = new Set(["limit_exceeded", "timeout", "sub_agent_depth"]);

/** Options of a {@link SubAgentTool}. */
export interface SubAgentToolOptions<State, Ctx, ChildCtx> {
  /** Tool name (ASCII snake_case); default: the sub-agent's name. */
  name?: string;
  /** Default: the sub-agent's description. */
  description?: string;
  /** Custom JSON Schema of the arguments (an object schema). Default: `{ input: string }`. */
  parameters?: JsonObject;
  /** Turn validated arguments into the child's input. Default: `args.input` when it is a string, else the arguments as JSON text. */
  toInput?: (args: JsonObject) => AgentInput;
  /** The child's context data. Default: the parent run's data. */
  data?: (ctx: ToolExecutionContext<State, Ctx>) => ChildCtx;
  /** Default `"unbounded"`: the child's own caps and the parent's deadline bound it. */
  timeout?: ToolTimeout;
}

/**
 * A sub-agent as a tool: the parent model calls a whole agent the way it calls any tool.
 *
 * Contract: the child runs in the LIVE parent context (`ctx.run`: depth, event stream, lineage,
 * cancellation, usage roll-up — see `SubAgent.run` with a `parent`) and the tool returns its final
 * answer text, or its structured answer when the child agent has a response format. When the child hits a limit (`limit_exceeded`, `timeout`, `sub_agent_depth`) or
 * pauses, the tool returns an ERROR result telling the parent model the sub-agent stopped early
 * and its work is incomplete — a partial answer is never passed off as complete. Any other
 * child error, and the parent's own cancellation or deadline, propagates and fails the parent
 * run (`errorPolicy: "fail"`).
 *
 * `Ctx` is the parent's context type: by default any (`unknown`, like a `tool({...})` without
 * type arguments), so the tool fits in any parent; name it to type a `data` mapping.
 */
export class SubAgentTool<State = unknown, Ctx = unknown, ChildCtx = Ctx>
  implements Tool<State, Ctx, JsonObject>
{
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
  /** `parameters`, compiled once when the tool is built. */
  private readonly schema: CompiledSchema;
  readonly timeout: ToolTimeout;
  readonly errorPolicy = "fail" as const;
  /** Its work is a child run: a journaled parent records it with `durable.child`, not a tool step. */
  readonly runsChild = true;
  readonly agent: SubAgent<State, ChildCtx>;
  private readonly options: SubAgentToolOptions<State, Ctx, ChildCtx>;

  constructor(agent: SubAgent<State, ChildCtx>, options: SubAgentToolOptions<State, Ctx, ChildCtx> = {}) {
    this.agent = agent;
    this.options = options;
    this.name = options.name ?? agent.name;
    assertToolName(this.name);
    this.description = options.description ?? agent.description;
    this.parameters = structuredClone(options.parameters ?? defaultParameters(agent.name));
    assertObjectSchema(this.parameters, this.name);
    this.schema = compileSchema(this.parameters);
    this.timeout = options.timeout ?? "unbounded";
  }

  validate(args: JsonObject): ArgsValidation<JsonObject> {
    const issues = this.schema.validate(args);
    return issues.length === 0 ? { ok: true, value: args } : { ok: false, issues };
  }

  async execute(args: JsonObject, ctx: ToolExecutionContext<State, Ctx>): Promise<ToolOutput> {
    const input = this.options.toInput?.(args) ?? defaultInput(args);
    const data = this.options.data ? this.options.data(ctx) : (ctx.run.data as unknown as ChildCtx);
    try {
      const run = await this.agent.runInParent(ctx.state, data, ctx.run, input, {
        signal: ctx.signal,
        callId: ctx.callId,
      });
      if (run.stopReason === "interrupted") {
        return incomplete(
          `Error: sub-agent "${this.agent.name}" was paused before finishing (${run.paused?.reason ?? "interrupted"}). ` +
            "It has no complete answer yet: do not treat any of its work as complete.",
          run.runId,
        );
      }
      // A child with a response format answers with its validated value (the parent reads JSON).
      return run.structured !== undefined ? run.structured : runText(run);
    } catch (thrown) {
      // The parent itself was cancelled or timed out: that is the parent's failure, not the child's.
      if (ctx.run.aborted || !TinyAgentsError.isInstance(thrown) || !LIMIT_CODES.has(thrown.code))
        throw thrown;
      return incomplete(
        `Error: sub-agent "${this.agent.name}" hit its limit and stopped before finishing (${thrown.code}: ${thrown.message}). ` +
          "Its work is incomplete and must not be used as a complete answer; narrow the task, or continue without it.",
        undefined,
        thrown.code,
      );
    }
  }
}

function defaultParameters(name: string): JsonObject {
  return {
    type: "object",
    properties: {
      [SUBAGENT_INPUT_FIELD]: { type: "string", description: `The task or question for the ${name} agent.` },
    },
    required: [SUBAGENT_INPUT_FIELD],
  };
}

function defaultInput(args: JsonObject): AgentInput {
  const value = args[SUBAGENT_INPUT_FIELD];
  return typeof value === "string" ? value : JSON.stringify(args);
}

function incomplete(message: string, childRunId: string | undefined, code?: string): ToolReturn {
  const raw: JsonObject = { incomplete: true };
  if (childRunId !== undefined) raw.childRunId = childRunId;
  if (code !== undefined) raw.code = code;
  return { kind: "tool_return", content: [{ type: "text", text: message }], isError: true, raw };
}
