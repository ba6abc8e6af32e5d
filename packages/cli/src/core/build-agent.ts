import { AgentHarness, type AnyTool, type ChatHistory } from "@tinyagents/harness";
import { WorkspaceDescriptor } from "@tinyagents/harness/node";
import { PromptGuidedToolsModel } from "@tinyagents/harness/tool-calling";
import type { ChatModel } from "@tinyagents/inference";
import { addTool } from "../demo/add-tool.js";
import { positiveInt } from "./args.js";
import { buildTools } from "./build-tools.js";
import { CliError } from "./cli-error.js";
import type { CliIo } from "./cli-io.js";
import { EXIT } from "./exit-codes.js";
import { type SelectedModel, selectModel } from "./select-model.js";

/** What `run` and `chat` need to build their agent. */
export interface AgentOptions {
  io: CliIo;
  model?: string | undefined;
  /** `--base-url`, `--api-key-env`: see `SelectModelOptions`. */
  baseUrl?: string | undefined;
  apiKeyEnv?: string | undefined;
  /** `--system`: the agent's instructions (default: the CLI's own short prompt). */
  system?: string | undefined;
  /** `--no-stream`: call the model unary (`invoke`), for servers whose streaming is broken or absent. */
  noStream?: boolean | undefined;
  /** `--prompt-tools`: tools declared in the prompt and parsed from the text, for models without native tool calling. */
  promptTools?: boolean | undefined;
  tools: readonly string[];
  mcp: readonly string[];
  allowHosts: readonly string[];
  /** Keep thread history here (enables short-term memory for runs with a thread id). */
  history?: ChatHistory;
  maxModelCalls?: number | undefined;
}

/** A ready agent and how to tear it down. */
export interface AgentSetup {
  harness: AgentHarness;
  selected: SelectedModel;
  workspace: WorkspaceDescriptor;
  /** Tool name -> where it came from (`built-in`, `mcp:<server>`), for `/tools`. */
  toolOrigins: Map<string, string>;
  close(): Promise<void>;
}

/** The flags `run` and `chat` share (`AGENT_OPTIONS`), as parsed by `parseCommandArgs`. */
export interface AgentFlagValues {
  model?: string | undefined;
  "base-url"?: string | undefined;
  "api-key-env"?: string | undefined;
  system?: string | undefined;
  "no-stream"?: boolean | undefined;
  "prompt-tools"?: boolean | undefined;
  tools?: string[] | undefined;
  mcp?: string[] | undefined;
  "allow-host"?: string[] | undefined;
  "max-model-calls"?: string | undefined;
}

/** {@link AgentOptions} from the parsed flags (one mapping for `run` and `chat`). */
export function agentOptionsFromFlags(
  io: CliIo,
  values: AgentFlagValues,
  history: ChatHistory | undefined,
): AgentOptions {
  return {
    io,
    model: values.model,
    baseUrl: values["base-url"],
    apiKeyEnv: values["api-key-env"],
    system: values.system,
    noStream: values["no-stream"],
    promptTools: values["prompt-tools"],
    tools: values.tools ?? [],
    mcp: values.mcp ?? [],
    allowHosts: values["allow-host"] ?? [],
    ...(history === undefined ? {} : { history }),
    maxModelCalls: positiveInt("max-model-calls", values["max-model-calls"]),
  };
}

/** The instructions of a `run` or `chat` agent without `--system`. */
export const INSTRUCTIONS =
  "You are a helpful assistant running in the tinyagents command line. Use the tools when they help " +
  "(for the current time, always call a time tool instead of guessing). Be concise.";

/**
 * Select the model, build the built-in tools and connect MCP servers, and assemble the harness.
 * The workspace for file tools is the current directory, read-only.
 */
export async function buildAgent(options: AgentOptions): Promise<AgentSetup> {
  const { io } = options;
  const demoDelay = Number(io.env.TINYAGENTS_DEMO_DELAY_MS);
  const selected = await selectModel({
    model: options.model,
    baseUrl: options.baseUrl,
    apiKeyEnv: options.apiKeyEnv,
    env: io.env,
    ...(Number.isFinite(demoDelay) && io.env.TINYAGENTS_DEMO_DELAY_MS !== ""
      ? { demoDelayMs: demoDelay }
      : {}),
  });
  const envAllow = (io.env.TINYAGENTS_HTTP_ALLOW ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const tools: AnyTool[] = buildTools(options.tools, [...options.allowHosts, ...envAllow]);
  if (options.system !== undefined && options.system.trim() === "")
    throw new CliError("--system needs the instructions text", EXIT.usage);
  const harness = new AgentHarness({ instructions: options.system ?? INSTRUCTIONS });
  let model: ChatModel = selected.model;
  if (options.promptTools === true) model = new PromptGuidedToolsModel(model);
  if (options.noStream === true) model = unaryOnly(model);
  // The demo model is free and says so; real models are priced from the catalog (or "unknown").
  harness.registerModel(
    selected.spec,
    model,
    selected.isDemo ? { pricing: { inputPerMillion: 0, outputPerMillion: 0 } } : {},
  );
  if (options.maxModelCalls !== undefined)
    harness.withPolicy({ limits: { maxModelCalls: options.maxModelCalls } });
  if (options.history !== undefined) harness.withMemory({ history: options.history });
  const toolOrigins = new Map<string, string>();
  for (const t of tools) {
    harness.registerTool(t);
    toolOrigins.set(t.name, "built-in");
  }
  if (selected.isDemo && tools.length === 0 && options.mcp.length === 0) {
    harness.registerTool(addTool); // so the demo model still shows a tool loop for arithmetic
    toolOrigins.set(addTool.name, "demo");
  }
  let closeMcp = async () => {};
  if (options.mcp.length > 0) {
    const mcp = await import("@tinyagents/harness/mcp").catch((error: unknown) => {
      throw new CliError(
        `--mcp needs @modelcontextprotocol/sdk: ${(error as Error).message}. Install it with \`npm install @modelcontextprotocol/sdk\``,
        EXIT.config,
      );
    });
    const specs = options.mcp.map((text) => mcp.parseMcpServer(text));
    let toolset: Awaited<ReturnType<typeof mcp.loadMcpTools>>;
    try {
      // Clashes with built-ins are renamed (never replace them); say so on stderr.
      toolset = await mcp.loadMcpTools(specs, {
        onWarning: (warning) => io.stderr.write(`warning: ${warning.message}\n`),
      });
    } catch (error) {
      throw new CliError((error as Error).message, EXIT.unreachable);
    }
    toolset.attach(harness);
    for (const [name, origin] of toolset.names)
      toolOrigins.set(name, `mcp:${origin.server} (${origin.mcpName})`);
    closeMcp = () => toolset.close();
  }
  return {
    harness,
    selected,
    workspace: new WorkspaceDescriptor({ root: io.cwd, sandbox: "read_only", policyId: "cli-cwd" }),
    toolOrigins,
    close: closeMcp,
  };
}

/**
 * `model` without its `stream` method: the loop then calls `invoke` (one JSON response) and
 * replays it as stream items, so events and rendering stay the same.
 */
function unaryOnly(model: ChatModel): ChatModel {
  const unary: ChatModel = {
    provider: model.provider,
    modelId: model.modelId,
    invoke: (request, callOptions) => model.invoke(request, callOptions),
  };
  return Object.assign(
    unary,
    model.profile === undefined ? {} : { profile: model.profile },
    model.cacheIdentity === undefined ? {} : { cacheIdentity: model.cacheIdentity },
  );
}
