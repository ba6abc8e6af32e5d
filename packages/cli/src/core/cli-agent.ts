import { AgentHarness } from "@tinyagents/harness";
import { type ChatModel, TinyAgentsError } from "@tinyagents/inference";
import { addTool } from "../demo/add-tool.js";
import { DemoModel } from "../demo/demo-model.js";
import { INSTRUCTIONS } from "./build-agent.js";
import { buildTools } from "./build-tools.js";
import { isDemoSpec } from "./select-model.js";

/**
 * The agent flags of a `tinyagents run`, as its run record keeps them (with content capture):
 * enough to build the same agent again for a replay test.
 */
export interface CliAgentFlags {
  /** The model spec the run used (`demo`, `openai:gpt-4.1-mini`, ...). */
  model: string;
  /** `--system` (absent: the CLI's default instructions). */
  system?: string;
  /** `--tools` (as given). */
  tools?: string[];
  /** `--allow-host` and `TINYAGENTS_HTTP_ALLOW` hosts of the `http` tool. */
  allowHosts?: string[];
  /** `--max-model-calls`. */
  maxModelCalls?: number;
}

/** A model that must never be called: replay answers every call from the cassette. */
function replayStandIn(spec: string): ChatModel {
  const [provider = spec, ...rest] = spec.split(":");
  const fail = (): never => {
    throw new TinyAgentsError(
      "validation",
      `the ${spec} model of a rebuilt CLI agent is a stand-in for replay: it answers only from a cassette (replayRun)`,
      { details: { reason: "replay_stand_in", model: spec } },
    );
  };
  return {
    provider,
    modelId: rest.join(":") || spec,
    invoke: async () => fail(),
  };
}

/**
 * The agent a `tinyagents run` built from `flags` (instructions, built-in tools, the model under
 * its spec, limits), offline: the demo model is the demo model, any other model is a stand-in
 * that only a replay may serve (`replayRun` answers every call from the recording). A test
 * exported from a CLI run (`tinyagents test export`) rebuilds its agent here.
 */
export function cliAgent(flags: CliAgentFlags): AgentHarness {
  const harness = new AgentHarness({ instructions: flags.system ?? INSTRUCTIONS });
  const demo = isDemoSpec(flags.model);
  harness.registerModel(
    flags.model,
    demo ? new DemoModel() : replayStandIn(flags.model),
    demo ? { pricing: { inputPerMillion: 0, outputPerMillion: 0 } } : {},
  );
  if (flags.maxModelCalls !== undefined)
    harness.withPolicy({ limits: { maxModelCalls: flags.maxModelCalls } });
  const tools = buildTools(flags.tools ?? [], flags.allowHosts ?? []);
  for (const tool of tools) harness.registerTool(tool);
  if (demo && tools.length === 0) harness.registerTool(addTool);
  return harness;
}
