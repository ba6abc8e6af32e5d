import { TinyAgentsError, validationError } from "@tinyagents/inference";
import type { HarnessEventJournal } from "../../observability/event-journal.js";
import { type Cassette, type CassetteTolerances, serializeCassette } from "./cassette.js";
import { cassetteFromObservations, LIBRARY_CAPTURE_HINT } from "./cassette-from-journal.js";

/** How the exported test builds the agent under test. */
export type ExportedAgent =
  /** The user's module: its export (an agent, or a function returning one, maybe async). */
  | { module: string; export?: string }
  /**
   * Any code: `imports` (full import lines) and `build`, an expression of the agent
   * (`tinyagents test export` uses it to rebuild a CLI agent).
   */
  | { imports: readonly string[]; build: string; source?: Cassette["source"] };

/** Options of {@link exportRunAsTest}. */
export interface ExportRunOptions {
  /** How the test rebuilds the agent (required: replay runs the agent as the code now builds it). */
  agent: ExportedAgent;
  /** File base name (default: the run id, prefixed `run-` unless it starts with `run`): `<name>.cassette.json` and `<name>.replay.test.ts`. */
  name?: string;
  /** Tolerances written into the cassette. */
  tolerances?: Partial<CassetteTolerances>;
  /** The message naming the switch that records content (the CLI names its flag). */
  captureHint?: string;
}

/** A file of an exported test (relative to the output directory). */
export interface ExportedFile {
  path: string;
  contents: string;
}

/** What {@link exportRunAsTest} produced: the cassette, and the files to write. */
export interface ExportedRunTest {
  cassette: Cassette;
  /** The cassette JSON and the vitest file that replays it. */
  files: ExportedFile[];
}

/** A store with a journal (`CliStore`, or anything carrying `journal`) or the journal itself. */
export type JournalSource = HarnessEventJournal | { journal: HarnessEventJournal };

function journalOf(source: JournalSource): HarnessEventJournal {
  return "journal" in source && typeof source.journal === "object"
    ? source.journal
    : (source as HarnessEventJournal);
}

/**
 * Turn a journaled run into a deterministic regression test: reads the run tree's journal from
 * `store` and returns a cassette (each model call's request and response, tool calls with
 * arguments and results, approval decisions, sub-agent runs nested by call id; redacted values
 * stay redacted) and a vitest file that rebuilds the agent (`options.agent`) and replays the
 * cassette with `replayRun`. Write `files` where the test should live; no file is written here
 * (the inspector offers them as downloads, `tinyagents test export` writes them).
 *
 * Throws `validation`: details `reason: "content_not_captured"` when the run was journaled
 * without content (the message says which switch records it), `"not_found"` for an unknown run.
 */
export async function exportRunAsTest(
  store: JournalSource,
  runId: string,
  options: ExportRunOptions,
): Promise<ExportedRunTest> {
  if (typeof runId !== "string" || runId === "")
    throw validationError("exportRunAsTest needs a run id", { field: "runId" });
  const agent = options.agent as ExportedAgent | undefined;
  if (agent === undefined || (!("module" in agent) && !("build" in agent))) {
    throw validationError(
      "exportRunAsTest needs options.agent: { module, export } naming where your agent is built (the test replays against it)",
      { field: "agent" },
    );
  }
  const observations = await journalOf(store).read(runId);
  if (observations.length === 0) {
    throw new TinyAgentsError(
      "validation",
      `no journaled run "${runId}": nothing to export (list runs with \`tinyagents runs\`)`,
      {
        details: { reason: "not_found", runId },
      },
    );
  }
  const cassette = cassetteFromObservations(runId, observations, {
    ...("source" in agent && agent.source !== undefined ? { source: agent.source } : {}),
    ...(options.tolerances === undefined ? {} : { tolerances: options.tolerances }),
    captureHint: options.captureHint ?? LIBRARY_CAPTURE_HINT,
  });
  const safe = safeName(runId);
  const name = options.name ?? (safe.startsWith("run") ? safe : `run-${safe}`);
  return {
    cassette,
    files: [
      { path: `${name}.cassette.json`, contents: serializeCassette(cassette) },
      { path: `${name}.replay.test.ts`, contents: testFile(name, runId, agent) },
    ],
  };
}

function safeName(runId: string): string {
  return runId.replace(/[^A-Za-z0-9_.-]/g, "_");
}

/** The vitest file: read the cassette next to it, rebuild the agent, replay. */
function testFile(name: string, runId: string, agent: ExportedAgent): string {
  const imports: string[] = [];
  let build: string;
  if ("module" in agent) {
    const exported = agent.export ?? "default";
    imports.push(`import * as agentModule from ${JSON.stringify(agent.module)};`);
    build = [
      `  // Your agent as your code builds it today (edit the module, not this test).`,
      `  const exported: unknown = agentModule[${JSON.stringify(exported)} as keyof typeof agentModule];`,
      `  const built = typeof exported === "function" ? await (exported as () => unknown)() : exported;`,
      "  const agent = built as Parameters<typeof replayRun>[0];",
    ].join("\n");
  } else {
    imports.push(...agent.imports);
    build = `  const agent = ${agent.build};`;
  }
  return `// Replays journaled run ${runId} (exported by tinyagents): every model call is answered from
// ${name}.cassette.json and must be asked exactly as recorded; the first request that changed
// fails the test with a field-level diff. Tolerances (ignored fields, masks, tools to re-execute,
// what-if mode) live in the cassette: see docs/testkit.md.
import { readFileSync } from "node:fs";
import { parseCassette, replayRun } from "@tinyagents/harness/testkit";
import { test } from "vitest";
${imports.join("\n")}

const cassette = parseCassette(readFileSync(new URL("./${name}.cassette.json", import.meta.url), "utf8"));

test("run ${runId} replays as recorded", async () => {
${build}
  await replayRun(agent, cassette);
});
`;
}
