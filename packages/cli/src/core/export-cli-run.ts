import { isAbsolute, relative, resolve, sep } from "node:path";
import type { ExportedAgent, ExportedRunTest } from "@tinyagents/harness/testkit";
import { isJsonObject } from "@tinyagents/inference";
import type { CliAgentFlags } from "./cli-agent.js";
import { CliError, usageError } from "./cli-error.js";
import type { CliStore, RunRecord } from "./cli-store.js";
import { CAPTURE_CONTENT_ENV } from "./content-capture.js";
import { EXIT } from "./exit-codes.js";

/** What records the content a replay test needs, as the CLI says it. */
export const CLI_CAPTURE_HINT = `run it again without --no-capture-content (and with ${CAPTURE_CONTENT_ENV} unset or 1); a library agent needs traceDetailsMiddleware({ captureContent: true }) registered on it`;

/** Options of {@link exportCliRunAsTest}. */
export interface CliRunExportOptions {
  /** The module that builds the agent (runs the CLI did not start, or to override). */
  module?: string | undefined;
  /** Its export (default `default`). */
  export?: string | undefined;
  /** Where the files will be written (the test imports `module` relative to it; default: cwd). */
  outDir?: string | undefined;
  /** The files' base name (default: the run id). */
  name?: string | undefined;
  /** Resolves a relative `module` and `outDir` (default `process.cwd()`). */
  cwd?: string | undefined;
}

/**
 * A recorded run of the CLI's store as a replay test (cassette + vitest file, in memory): `demo`
 * runs rebuild the demo agent (`demoAgent()`), `run` runs the agent of their flags (`cliAgent`),
 * other runs the agent built by `options.module`. What `tinyagents test export` writes and the
 * inspector's "Export as test" offers. Throws `CliError` (exit 1) when the run cannot become a
 * test (no content captured, a thread's history, MCP tools), saying why and what to do.
 */
export async function exportCliRunAsTest(
  store: CliStore,
  runId: string,
  options: CliRunExportOptions = {},
): Promise<ExportedRunTest> {
  const record = await store.getRun(runId);
  if (record?.captureContent === false) {
    throw new CliError(
      `run ${runId} was recorded without content (--no-capture-content): its prompts, answers and tool results were not journaled, so it cannot be replayed. To make a test, ${CLI_CAPTURE_HINT}`,
      EXIT.failed,
    );
  }
  const cwd = options.cwd ?? process.cwd();
  const outDir = resolve(cwd, options.outDir ?? ".");
  const agent = exportedAgent(record, runId, options, outDir, cwd);
  const { exportRunAsTest } = await import("@tinyagents/harness/testkit");
  return exportRunAsTest(store, runId, {
    agent,
    captureHint: CLI_CAPTURE_HINT,
    ...(options.name === undefined ? {} : { name: options.name }),
  }).catch((error: unknown) => {
    throw new CliError((error as Error).message, EXIT.failed);
  });
}

/** How the exported test rebuilds the run's agent. */
function exportedAgent(
  record: RunRecord | undefined,
  runId: string,
  options: CliRunExportOptions,
  outDir: string,
  cwd: string,
): ExportedAgent {
  if (options.module !== undefined) {
    const absolute = isAbsolute(options.module) ? options.module : resolve(cwd, options.module);
    let specifier = relative(outDir, absolute).split(sep).join("/");
    if (!specifier.startsWith(".")) specifier = `./${specifier}`;
    // The test imports TypeScript sources by their `.js` name (NodeNext resolution).
    specifier = specifier.replace(/\.(m?)ts$/, ".$1js");
    return { module: specifier, ...(options.export === undefined ? {} : { export: options.export }) };
  }
  if (record === undefined) {
    throw usageError(
      `run ${runId} was not started by the CLI: name the module that builds its agent with --module FILE [--export NAME]`,
    );
  }
  if (record.command === "demo") {
    return {
      imports: ['import { demoAgent } from "tinyagents";'],
      build: "demoAgent()",
      source: { kind: "cli", command: "demo", model: record.model },
    };
  }
  const flags = record.agent;
  if (record.command === "run" && isJsonObject(flags) && typeof flags.model === "string") {
    if (flags.mcp === true) {
      throw usageError(
        `run ${runId} used MCP servers (--mcp), which a replay test cannot rebuild offline; build the same agent in a module and pass --module FILE [--export NAME]`,
      );
    }
    if (record.threadId !== null) {
      throw usageError(
        `run ${runId} continued thread "${record.threadId}": its first request carries the thread's history, which a rebuilt agent does not have; export a run without --thread, or pass --module FILE for an agent that loads that history`,
      );
    }
    const { mcp: _mcp, ...agentFlags } = flags as unknown as CliAgentFlags & { mcp?: boolean };
    return {
      imports: ['import { cliAgent } from "tinyagents";'],
      build: `cliAgent(${JSON.stringify(agentFlags)})`,
      source: { kind: "cli", command: "run", model: record.model, agent: agentFlags },
    };
  }
  throw usageError(
    `run ${runId} is a \`tinyagents ${record.command}\` run whose agent the CLI cannot rebuild (recorded before its flags were kept, or a chat turn that depends on the thread's history); build the same agent in a module and pass --module FILE [--export NAME]`,
  );
}
