import { mkdirSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ExportedAgent } from "@tinyagents/harness/testkit";
import { COMMON_OPTIONS, parseCommandArgs } from "../args.js";
import { CliError, usageError } from "../cli-error.js";
import type { CliIo } from "../cli-io.js";
import { openCliStore, type RunRecord } from "../cli-store.js";
import { CAPTURE_CONTENT_ENV } from "../content-capture.js";
import { EXIT } from "../exit-codes.js";
import { resolveDbPath } from "../paths.js";
import { resolveRunId } from "../run-lookup.js";

/** The `--help` text of `tinyagents test`. */
export const TEST_HELP = `tinyagents test export <run-id|last> [--out DIR]

Turn a recorded run into a deterministic regression test: writes <name>.cassette.json (every
model call's request and response, tool calls and results, approvals, sub-agent runs; redacted
values stay redacted) and <name>.replay.test.ts, a vitest file that rebuilds the agent and replays
the cassette offline. The test fails at the first request that changed, naming the step and the
field ("model call 1: system prompt changed (line 1)"). Format and tolerances: docs/testkit.md.

A \`tinyagents demo\` run rebuilds the demo agent. A run of your own agent (journaled into this
store by your code) needs --module: the file that builds it, and --export: the export (an agent,
or a function returning one). The run must have been journaled with its content (not with
--no-capture-content or ${CAPTURE_CONTENT_ENV}=0).

Options:
      --out DIR       where to write the files (default: the current directory)
      --name NAME     the files' base name (default: run-<run-id>)
      --module FILE   the module that builds your agent (runs not started by the CLI)
      --export NAME   its export (default: default)
      --db FILE       the SQLite store (see \`tinyagents run --help\`)
  -h, --help          this help
`;

const CLI_CAPTURE_HINT = `run it again without --no-capture-content (and with ${CAPTURE_CONTENT_ENV} unset or 1); a library agent needs traceDetailsMiddleware({ captureContent: true }) registered last`;

/** `tinyagents test export <run-id|last>`: write a cassette and a replay test for a run. */
export async function testCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("test", argv, {
    ...COMMON_OPTIONS,
    out: { type: "string" },
    name: { type: "string" },
    module: { type: "string" },
    export: { type: "string" },
  });
  if (values.help === true) {
    io.stdout.write(TEST_HELP);
    return EXIT.ok;
  }
  const [sub, wanted, ...extra] = positionals;
  if (sub !== "export" || wanted === undefined || extra.length > 0) {
    throw usageError(
      "usage: tinyagents test export <run-id|last> [--out DIR] (list runs with tinyagents runs; see tinyagents test --help)",
    );
  }
  const outDir = resolve(io.cwd, values.out ?? ".");
  const store = await openCliStore(resolveDbPath(io.env, io.cwd, values.db), io.env);
  try {
    const runId = await resolveRunId(store, wanted);
    const record = await store.getRun(runId);
    if (record?.captureContent === false) {
      throw new CliError(
        `run ${runId} was recorded without content (--no-capture-content): its prompts, answers and tool results were not journaled, so it cannot be replayed. To make a test, ${CLI_CAPTURE_HINT}`,
        EXIT.failed,
      );
    }
    const agent = exportedAgent(record, runId, values.module, values.export, outDir, io.cwd);
    const { exportRunAsTest } = await import("@tinyagents/harness/testkit");
    const exported = await exportRunAsTest(store, runId, {
      agent,
      captureHint: CLI_CAPTURE_HINT,
      ...(values.name === undefined ? {} : { name: values.name }),
    }).catch((error: unknown) => {
      throw new CliError((error as Error).message, EXIT.failed);
    });
    mkdirSync(outDir, { recursive: true });
    for (const file of exported.files) writeFileSync(join(outDir, file.path), file.contents);
    const [cassette, test] = exported.files.map((f) => relative(io.cwd, join(outDir, f.path)) || f.path);
    const calls = exported.cassette.run.modelCalls.length;
    io.stdout.write(
      `wrote ${cassette} (${calls} model call${calls === 1 ? "" : "s"}) and ${test}\nrun it: npx vitest run ${test}\n`,
    );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/** How the exported test rebuilds the run's agent. */
function exportedAgent(
  record: RunRecord | undefined,
  runId: string,
  module: string | undefined,
  exportName: string | undefined,
  outDir: string,
  cwd: string,
): ExportedAgent {
  if (module !== undefined) {
    const absolute = isAbsolute(module) ? module : resolve(cwd, module);
    let specifier = relative(outDir, absolute).split(sep).join("/");
    if (!specifier.startsWith(".")) specifier = `./${specifier}`;
    // The test imports TypeScript sources by their `.js` name (NodeNext resolution).
    specifier = specifier.replace(/\.(m?)ts$/, ".$1js");
    return { module: specifier, ...(exportName === undefined ? {} : { export: exportName }) };
  }
  if (record?.command === "demo") {
    return {
      imports: ['import { demoAgent } from "tinyagents";'],
      build: "demoAgent()",
      source: { kind: "cli", command: "demo", model: record.model },
    };
  }
  if (record === undefined) {
    throw usageError(
      `run ${runId} was not started by the CLI: name the module that builds its agent with --module FILE [--export NAME]`,
    );
  }
  throw usageError(
    `run ${runId} is a \`tinyagents ${record.command}\` run, whose agent the CLI cannot rebuild yet (only \`demo\` runs); build the same agent in a module and pass --module FILE [--export NAME]`,
  );
}
