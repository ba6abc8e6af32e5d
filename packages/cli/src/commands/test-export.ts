import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { COMMON_OPTIONS, parseCommandArgs } from "../core/args.js";
import { usageError } from "../core/cli-error.js";
import type { CliIo } from "../core/cli-io.js";
import { openCliStore } from "../core/cli-store.js";
import { CAPTURE_CONTENT_ENV } from "../core/content-capture.js";
import { EXIT } from "../core/exit-codes.js";
import { exportCliRunAsTest } from "../core/export-cli-run.js";
import { resolveDbPath } from "../core/paths.js";
import { resolveRunId } from "../core/run-lookup.js";

/** The `--help` text of `tinyagents test`. */
export const TEST_HELP = `tinyagents test export <run-id|last> [--out DIR]

Turn a recorded run into a deterministic regression test: writes <name>.cassette.json (every
model call's request and response, tool calls and results, approvals, sub-agent runs; redacted
values stay redacted) and <name>.replay.test.ts, a vitest file that rebuilds the agent and replays
the cassette offline. The test fails at the first request that changed, naming the step and the
field ("model call 1: system prompt changed (line 1)"). Format and tolerances: docs/testkit.md.

A \`tinyagents demo\` run rebuilds the demo agent, a \`tinyagents run\` run the agent of its flags
(--system, --tools, ...; its model is a stand-in only the cassette answers; not with --mcp or
--thread). A run of your own agent (journaled into this store by your code) needs --module: the
file that builds it, and --export: the export (an agent, or a function returning one). The run must have been journaled with its content (not with
--no-capture-content or ${CAPTURE_CONTENT_ENV}=0).

Options:
      --out DIR       where to write the files (default: the current directory)
      --name NAME     the files' base name (default: the run id)
      --module FILE   the module that builds your agent (runs not started by the CLI)
      --export NAME   its export (default: default)
      --db FILE       the SQLite store (see \`tinyagents run --help\`)
  -h, --help          this help
`;

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
    const exported = await exportCliRunAsTest(store, runId, {
      module: values.module,
      export: values.export,
      outDir,
      name: values.name,
      cwd: io.cwd,
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
