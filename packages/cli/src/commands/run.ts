import { runText } from "@tinyagents/harness";
import type { JsonObject } from "@tinyagents/inference";
import { AGENT_OPTIONS, parseCommandArgs, positiveInt } from "../core/args.js";
import { type AgentFlagValues, agentOptionsFromFlags, buildAgent } from "../core/build-agent.js";
import type { CliAgentFlags } from "../core/cli-agent.js";
import { describeFailure, usageError } from "../core/cli-error.js";
import type { CliIo } from "../core/cli-io.js";
import { openCliStore } from "../core/cli-store.js";
import { captureContentSetting } from "../core/content-capture.js";
import { executeTurn } from "../core/execute-turn.js";
import { EXIT } from "../core/exit-codes.js";
import { resolveDbPath } from "../core/paths.js";
import { StreamRenderer } from "../render/stream-renderer.js";
import { formatSummary, summaryJson } from "../render/summary.js";

/** The `--help` text of `tinyagents run`. */
export const RUN_HELP = `tinyagents run "<prompt>" [options]

Run an agent once: the answer streams as it arrives, each tool call is shown with its
arguments and duration, then a summary (model calls, tool calls, tokens, cost, wall time, run id).
Every run is journaled in the store, with its messages (secrets redacted); inspect it with
\`tinyagents show <run-id>\` or \`tinyagents ui\`.

Options:
  -m, --model provider:model   the model (default: TINYAGENTS_MODEL, a provider whose API key is
                               set, a local Ollama server, else the offline demo model)
      --base-url URL           the model's endpoint: any OpenAI-compatible server (vLLM, llama.cpp,
                               LM Studio, a proxy) with --model MODEL_ID, or a provider:model's own URL
      --api-key-env NAME       read the API key from the environment variable NAME
      --system TEXT            the agent's instructions (replaces the CLI's default prompt)
      --no-stream              call the model without streaming (one JSON response per call)
      --prompt-tools           tools declared in the prompt and parsed from the reply, for models
                               or servers without native tool calling
  -t, --tools LIST             built-in tools: time, fs, calc, http (comma-separated, repeatable)
      --mcp "<command>"        load tools from an MCP server (a command started over stdio, or an
                               http(s) URL for Streamable HTTP; repeatable)
      --allow-host HOST        what http_fetch may fetch (repeatable; or TINYAGENTS_HTTP_ALLOW)
      --thread ID              continue the conversation kept under this thread id
      --max-model-calls N      fail closed after N model calls (default 25)
      --no-capture-content     journal no prompt, answers, tool arguments or results (only the
                               run's shape, usage, cost and errors); or TINYAGENTS_CAPTURE_CONTENT=0
      --json                   print one JSON object (answer, usage, cost, run id) instead of text
      --db FILE                the SQLite store (default: $TINYAGENTS_HOME/tinyagents.db, else
                               $XDG_DATA_HOME/tinyagents/tinyagents.db, else ~/.local/share/tinyagents/);
                               or a postgres:// URL shared with workers (or TINYAGENTS_DATABASE_URL)
  -h, --help                   this help

The prompt may also come on standard input: echo "what time is it?" | tinyagents run --tools time
`;

/** `tinyagents run`: one streamed agent run, journaled to the store. Returns the exit code. */
export async function runCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("run", argv, {
    ...AGENT_OPTIONS,
    json: { type: "boolean" },
  });
  if (values.help === true) {
    io.stdout.write(RUN_HELP);
    return EXIT.ok;
  }
  let prompt = positionals.join(" ").trim();
  if (prompt === "" && io.stdin.isTTY !== true) prompt = (await readAll(io.stdin)).trim();
  if (prompt === "")
    throw usageError('run needs a prompt: tinyagents run "what time is it in Tokyo?" --tools time');
  const json = values.json === true;
  const captureContent = captureContentSetting(io.env, values["no-capture-content"]);
  const store = await openCliStore(resolveDbPath(io.env, io.cwd, values.db), io.env);
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  io.signals?.on("SIGINT", onSigint);
  let setup: Awaited<ReturnType<typeof buildAgent>> | undefined;
  try {
    setup = await buildAgent(agentOptionsFromFlags(io, values, store.history));
    if (setup.selected.notice !== undefined) io.stderr.write(`${setup.selected.notice}\n`);
    const renderer = new StreamRenderer(io.stdout);
    const result = await executeTurn({
      harness: setup.harness,
      store,
      workspace: setup.workspace,
      prompt,
      command: "run",
      captureContent,
      modelSpec: setup.selected.spec,
      // Plain JSON data (flag values), kept in the run record.
      agentFlags: runAgentFlags(setup.selected.spec, values, io.env) as unknown as JsonObject,
      threadId: values.thread,
      signal: controller.signal,
      ...(json ? {} : { onRecord: (record) => renderer.onRecord(record) }),
    });
    const failure = result.error === undefined ? undefined : describeFailure(result.error);
    if (json) {
      const body = {
        answer: runText(result.run),
        ...(result.run.structured === undefined ? {} : { structured: result.run.structured }),
        model: setup.selected.spec,
        ...summaryJson(result.run, result.wallMs, result.runId),
        ...(failure === undefined ? {} : { error: { code: result.error?.code, message: failure.message } }),
        ...(result.storageError === undefined
          ? {}
          : {
              saved: false,
              storageError: { code: result.storageError.code, message: result.storageError.message },
            }),
      };
      io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    } else {
      renderer.finish();
      if (!renderer.wroteText && failure === undefined) io.stdout.write(`${runText(result.run)}\n`);
      io.stdout.write(`\n${formatSummary(result.run, result.wallMs, result.runId)}\n`);
    }
    if (failure !== undefined) {
      io.stderr.write(
        `run ${result.runId} ${failure.exitCode === EXIT.cancelled ? "cancelled" : "failed"}: ${failure.message}\n`,
      );
    }
    if (result.storageError !== undefined) {
      // The answer above may be fine, but the run is not on record as it happened: say so, and
      // fail as a store problem (a durable run also stops at its next checkpoint: same cause).
      io.stderr.write(`run ${result.runId} was not saved to ${store.file}: ${result.storageError.message}\n`);
      if (failure === undefined || result.error?.code === "storage") return EXIT.config;
    }
    return failure === undefined ? EXIT.ok : failure.exitCode;
  } finally {
    io.signals?.off("SIGINT", onSigint);
    await setup?.close();
    await store.close();
  }
}

/**
 * The flags that rebuild this run's agent (`cliAgent`), for the run record. MCP servers are not
 * rebuilt offline: a run using them records `mcp: true` and cannot be exported as a test.
 */
function runAgentFlags(
  spec: string,
  values: AgentFlagValues,
  env: Readonly<Record<string, string | undefined>>,
): CliAgentFlags & { mcp?: boolean } {
  const flags: CliAgentFlags & { mcp?: boolean } = { model: spec };
  if (values.system !== undefined) flags.system = values.system;
  if (values.tools !== undefined && values.tools.length > 0) flags.tools = [...values.tools];
  const hosts = [
    ...(values["allow-host"] ?? []),
    ...(env.TINYAGENTS_HTTP_ALLOW ?? "")
      .split(",")
      .map((h) => h.trim())
      .filter((h) => h !== ""),
  ];
  if (hosts.length > 0) flags.allowHosts = hosts;
  const max = positiveInt("max-model-calls", values["max-model-calls"]);
  if (max !== undefined) flags.maxModelCalls = max;
  if ((values.mcp ?? []).length > 0) flags.mcp = true;
  return flags;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream)
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  return text;
}
