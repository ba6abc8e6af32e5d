import { createInterface } from "node:readline";
import type { CostTotals } from "@tinyagents/harness";
import { addCost, emptyCost } from "@tinyagents/harness/internal";
import { addUsageTotals, emptyUsageTotals, type UsageTotals } from "@tinyagents/inference";
import { AGENT_OPTIONS, parseCommandArgs } from "../core/args.js";
import { type AgentSetup, agentOptionsFromFlags, buildAgent } from "../core/build-agent.js";
import { describeFailure } from "../core/cli-error.js";
import type { CliIo } from "../core/cli-io.js";
import { type CliStore, openCliStore } from "../core/cli-store.js";
import { captureContentSetting } from "../core/content-capture.js";
import { executeTurn } from "../core/execute-turn.js";
import { EXIT } from "../core/exit-codes.js";
import { resolveDbPath } from "../core/paths.js";
import { rawOutput } from "../core/redacted-io.js";
import { newThreadId } from "../core/run-ids.js";
import { formatCostWithDate, formatDuration, formatTokens, plural } from "../render/format.js";
import { StreamRenderer } from "../render/stream-renderer.js";

/** The `--help` text of `tinyagents chat`. */
export const CHAT_HELP = `tinyagents chat [options]

An interactive session on a thread. The history is kept in the SQLite store, so a later
\`tinyagents chat --thread ID\` (or \`run --thread ID\`) continues it. Works with piped input too:
each line is one turn.

Commands inside the chat:
  /tools   the tools the agent has        /cost   tokens and cost of this session
  /reset   forget this thread's history   /exit   leave (Ctrl-D works too)
Ctrl-C cancels the current turn (the thread keeps everything before it); at the prompt it exits
(exit code 130).

Options:
  -m, --model provider:model   the model (as for run)
      --base-url URL           the model's endpoint: any OpenAI-compatible server (vLLM, llama.cpp,
                               LM Studio, a proxy) with --model MODEL_ID, or a provider:model's own URL
      --api-key-env NAME       read the API key from the environment variable NAME
      --system TEXT            the agent's instructions (replaces the CLI's default prompt)
      --no-stream              call the model without streaming (one JSON response per call)
      --prompt-tools           tools declared in the prompt and parsed from the reply, for models
                               or servers without native tool calling
  -t, --tools LIST             built-in tools: time, fs, calc, http
      --mcp "<command>"        tools from an MCP server (repeatable)
      --allow-host HOST        what http_fetch may fetch (repeatable)
      --thread ID              the thread to continue (default: a new one)
      --max-model-calls N      per turn (default 25)
      --no-capture-content     journal no prompts, answers, tool arguments or results (only the
                               run's shape, usage, cost and errors); or TINYAGENTS_CAPTURE_CONTENT=0
                               (the thread's history is still kept, for the chat to continue)
      --db FILE                the SQLite store (see \`tinyagents run --help\`)
  -h, --help                   this help
`;

/** `tinyagents chat`: a line-by-line conversation on a persisted thread. Returns the exit code. */
export async function chatCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs("chat", argv, AGENT_OPTIONS);
  if (values.help === true) {
    io.stdout.write(CHAT_HELP);
    return EXIT.ok;
  }
  const captureContent = captureContentSetting(io.env, values["no-capture-content"]);
  const store = await openCliStore(resolveDbPath(io.env, io.cwd, values.db), io.env);
  let setup: AgentSetup | undefined;
  try {
    setup = await buildAgent(agentOptionsFromFlags(io, values, store.history));
    if (setup.selected.notice !== undefined) io.stderr.write(`${setup.selected.notice}\n`);
    const threadId = values.thread ?? newThreadId();
    const earlier = (await store.history.load(threadId)).length;
    io.stdout.write(
      `tinyagents chat · model ${setup.selected.spec} · thread ${threadId}${earlier > 0 ? ` (${earlier} earlier messages)` : ""}\n` +
        `Type /tools, /cost, /reset or /exit. Continue later with: tinyagents chat --thread ${threadId}\n`,
    );
    return await chatLoop(io, store, setup, threadId, captureContent);
  } finally {
    await setup?.close();
    await store.close();
  }
}

async function chatLoop(
  io: CliIo,
  store: CliStore,
  setup: AgentSetup,
  threadId: string,
  captureContent: boolean,
): Promise<number> {
  const interactive = io.stdin.isTTY === true;
  const rl = createInterface({
    input: io.stdin,
    ...(interactive ? { output: rawOutput(io.stdout) as NodeJS.WritableStream, terminal: true } : {}),
  });
  let usage: UsageTotals = emptyUsageTotals();
  let cost: CostTotals = emptyCost();
  let turns = 0;
  let modelCalls = 0;
  let current: AbortController | undefined;
  let quit = false;
  const onInterrupt = () => {
    if (current !== undefined) current.abort();
    else {
      quit = true;
      rl.close();
    }
  };
  rl.on("SIGINT", onInterrupt); // a TTY: readline owns Ctrl-C
  io.signals?.on("SIGINT", onInterrupt); // piped input: the process gets it
  const prompt = () => {
    if (interactive) rl.prompt();
  };
  rl.setPrompt("you> ");
  prompt();
  try {
    for await (const raw of rl) {
      const line = raw.trim();
      if (line === "") {
        prompt();
        continue;
      }
      if (!interactive) io.stdout.write(`you> ${line}\n`);
      if (line.startsWith("/")) {
        const command = line.slice(1).split(/\s+/)[0]?.toLowerCase();
        if (command === "exit" || command === "quit") break;
        if (command === "reset") {
          await store.history.clear(threadId);
          io.stdout.write(`(thread ${threadId} cleared)\n`);
        } else if (command === "cost") {
          io.stdout.write(
            `(${plural(turns, "turn")} · ${plural(modelCalls, "model call")} · ${formatTokens(usage)} · cost ${formatCostWithDate(cost, { modelCalls, usage })})\n`,
          );
        } else if (command === "tools") {
          const tools = setup.harness.tools.list();
          io.stdout.write(
            tools.length === 0
              ? "(no tools: start the chat with --tools time,calc or --mcp)\n"
              : `${tools.map((t) => `  ${t.name} [${setup.toolOrigins.get(t.name) ?? "?"}; ${t.policy?.sideEffects ?? "unknown"}] ${t.description.split("\n")[0]?.slice(0, 90)}`).join("\n")}\n`,
          );
        } else {
          io.stdout.write(`(unknown command ${line}; try /tools, /cost, /reset or /exit)\n`);
        }
        prompt();
        continue;
      }
      current = new AbortController();
      const renderer = new StreamRenderer(io.stdout, { answerPrefix: "ai> " });
      try {
        const result = await executeTurn({
          harness: setup.harness,
          store,
          workspace: setup.workspace,
          prompt: line,
          command: "chat",
          captureContent,
          modelSpec: setup.selected.spec,
          threadId,
          signal: current.signal,
          onRecord: (record) => renderer.onRecord(record),
        });
        renderer.finish();
        turns++;
        modelCalls += result.run.modelCalls;
        usage = addUsageTotals(usage, result.run.usage);
        cost = addCost(cost, result.run.cost);
        if (result.error !== undefined) {
          const failure = describeFailure(result.error);
          io.stdout.write(
            failure.exitCode === EXIT.cancelled
              ? "(turn cancelled; the thread keeps everything before it)\n"
              : `(turn failed: ${failure.message})\n`,
          );
        } else {
          const u = result.run.usage;
          io.stdout.write(
            `(${plural(result.run.modelCalls, "model call")} · ${plural(result.run.toolCalls, "tool call")} · ${u.totalTokens} tokens · ${formatCostWithDate(result.run.cost, result.run)} · ${formatDuration(result.wallMs)} · ${result.runId})\n`,
          );
        }
      } finally {
        current = undefined;
      }
      if (quit) break;
      prompt();
    }
  } finally {
    rl.off("SIGINT", onInterrupt);
    io.signals?.off("SIGINT", onInterrupt);
    rl.close();
  }
  if (interactive) io.stdout.write("\n");
  // Ctrl-C at the prompt ends the session as an interruption (docs/cli.md); /exit and EOF are 0.
  return quit ? EXIT.cancelled : EXIT.ok;
}
