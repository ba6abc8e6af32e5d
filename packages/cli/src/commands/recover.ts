import { type AgentRun, attachObservability, runText } from "@tinyagents/harness";
import { continueEventSink } from "@tinyagents/harness/observability";
import { TinyAgentsError } from "@tinyagents/inference";
import { COMMON_OPTIONS, parseCommandArgs } from "../core/args.js";
import { type AgentFlagValues, agentOptionsFromFlags, buildAgent } from "../core/build-agent.js";
import type { CliAgentFlags } from "../core/cli-agent.js";
import { CliError, describeFailure, usageError } from "../core/cli-error.js";
import type { CliIo } from "../core/cli-io.js";
import { type CliStore, openCliStore } from "../core/cli-store.js";
import { EXIT } from "../core/exit-codes.js";
import { resolveDbPath } from "../core/paths.js";
import { resolveRunId } from "../core/run-lookup.js";
import { formatSummary, summaryJson } from "../render/summary.js";

/** The `--help` text of `tinyagents recover`. */
export const RECOVER_HELP = `tinyagents recover <run-id|last> [options]

Continue a run whose process died (find them with \`tinyagents runs --stale\`): the run is taken
in the store with a fenced take (its dead owner can write nothing more), its agent is built again
from the flags its \`tinyagents run\` recorded, and it continues from its last checkpoint (a
finished model call or tool batch is not done again). Then the answer and a summary, as \`run\`.

Refused, with the reason, and nothing executed: a run whose owner still holds a live lease (it
is running), a finished, paused or sub-agent run, a run another process recovered first, and a
run whose agent cannot be rebuilt (started by \`chat\`, with --mcp or --no-capture-content).

Options:
      --base-url URL           the model's endpoint, when the run used --base-url (not recorded)
      --api-key-env NAME       read the API key from NAME, when the run used --api-key-env
      --json                   print one JSON object (answer, usage, cost, run id)
      --db FILE                the store (as for run); or a postgres:// URL
  -h, --help                   this help
`;

/** `tinyagents recover <run-id>`: continue a dead durable run of the store. Returns the exit code. */
export async function recoverCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("recover", argv, {
    ...COMMON_OPTIONS,
    "base-url": { type: "string" },
    "api-key-env": { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help === true) {
    io.stdout.write(RECOVER_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) {
    throw usageError(
      "recover needs one run id: tinyagents recover <run-id> (find them with tinyagents runs --stale)",
    );
  }
  const store = await openCliStore(resolveDbPath(io.env, io.cwd, values.db), io.env);
  let setup: Awaited<ReturnType<typeof buildAgent>> | undefined;
  try {
    const runId = await resolveRunId(store, positionals[0] as string);
    const flags = await recordedFlags(store, runId);
    const agentValues: AgentFlagValues = {
      model: flags.model,
      system: flags.system,
      tools: flags.tools,
      "allow-host": flags.allowHosts,
      "max-model-calls": flags.maxModelCalls === undefined ? undefined : String(flags.maxModelCalls),
      "base-url": values["base-url"],
      "api-key-env": values["api-key-env"],
    };
    setup = await buildAgent(agentOptionsFromFlags(io, agentValues, store.history));
    const started = Date.now();
    // The recovered run continues the dead run's journal (offsets go on) and its status record.
    const events = await continueEventSink(store.journal, runId);
    const observed = attachObservability(events, { journal: store.journal, statusStore: store.statusStore });
    let run: AgentRun;
    try {
      // A RunResult is an AgentRun (the CLI's agents answer in text or JSON).
      run = (await setup.harness.recover(runId, {
        events,
        durable: {
          store: store.checkpoints,
          ownerId: `cli-${process.pid}`,
          agent: "cli",
          flush: () => observed.flush(),
        },
      })) as AgentRun;
    } catch (error) {
      throw refused(error, runId) ?? error;
    } finally {
      await observed.close();
    }
    const wallMs = Date.now() - started;
    if (values.json === true) {
      const body = {
        answer: runText(run),
        model: flags.model,
        recovered: true,
        ...summaryJson(run, wallMs, runId),
      };
      io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    } else {
      io.stdout.write(`recovered run ${runId}\n${runText(run)}\n\n${formatSummary(run, wallMs, runId)}\n`);
    }
    return EXIT.ok;
  } catch (error) {
    const failure = describeFailure(error);
    io.stderr.write(`${failure.message}\n`);
    return failure.exitCode;
  } finally {
    await setup?.close();
    await store.close();
  }
}

/** The agent flags `tinyagents run` recorded for `runId`, or a clear refusal. */
async function recordedFlags(store: CliStore, runId: string): Promise<CliAgentFlags & { mcp?: boolean }> {
  const record = await store.getRun(runId);
  if (record === undefined) {
    throw new CliError(`cannot recover run "${runId}": ${store.file} has no record of it`, EXIT.failed);
  }
  const flags = record.agent as (CliAgentFlags & { mcp?: boolean }) | undefined;
  if (flags === undefined || typeof flags.model !== "string") {
    const why =
      record.captureContent === false
        ? "it ran with --no-capture-content, so its agent's flags were not kept"
        : `it was started by \`tinyagents ${record.command}\`, which keeps no agent flags`;
    throw new CliError(
      `cannot recover run "${runId}": ${why}; recover it with agent.recover(runId, options) in code that builds the same agent`,
      EXIT.failed,
    );
  }
  if (flags.mcp === true) {
    throw new CliError(
      `cannot recover run "${runId}": it used --mcp tools, which are not recorded; recover it with agent.recover(runId, options) in code that connects the same servers`,
      EXIT.failed,
    );
  }
  return flags;
}

/** A refused take (live owner, finished, paused, child, unknown) as one clear line. */
function refused(error: unknown, runId: string): CliError | undefined {
  if (!TinyAgentsError.isInstance(error)) return undefined;
  if (error.code !== "conflict" && error.code !== "not_found") return undefined;
  if ((error.details as { mode?: unknown } | undefined)?.mode !== "recover") return undefined;
  return new CliError(
    `${error.message} [${error.code}] (nothing was executed for run "${runId}")`,
    EXIT.failed,
  );
}
