import { COMMON_OPTIONS, parseCommandArgs } from "../core/args.js";
import { describeFailure } from "../core/cli-error.js";
import type { CliIo } from "../core/cli-io.js";
import { type CliStore, openCliStore } from "../core/cli-store.js";
import { captureContentSetting } from "../core/content-capture.js";
import { EXIT } from "../core/exit-codes.js";
import { resolveDbPath } from "../core/paths.js";
import { runDemo } from "./run-demo.js";

/** The `--help` text of `tinyagents demo`. */
export const DEMO_HELP = `tinyagents demo ["<prompt>"]

The offline showcase (what \`npm start\` runs): a scripted multi-step agent run with tools, a
sub-agent and structured output, streamed, then the cost and usage summary. No key, no network:
the model is the scripted demo model, not an LLM, and the output says so. The run is journaled
in the store like any other, with its messages: \`tinyagents show <run-id>\` and \`tinyagents ui\`
render it.

Options:
      --db FILE    the SQLite store (see \`tinyagents run --help\`)
      --no-capture-content
                   journal no prompt, answers, tool arguments or results (see \`tinyagents run --help\`)
  -h, --help       this help
`;

/** `tinyagents demo`: the offline, scripted showcase. */
export async function demoCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("demo", argv, {
    ...COMMON_OPTIONS,
    "no-capture-content": { type: "boolean" },
  });
  if (values.help === true) {
    io.stdout.write(DEMO_HELP);
    return EXIT.ok;
  }
  const prompt = positionals.join(" ").trim();
  const captureContent = captureContentSetting(io.env, values["no-capture-content"]);
  const delay = Number(io.env.TINYAGENTS_DEMO_DELAY_MS);
  // The showcase must run even where the store cannot open (`npm start` on a broken native
  // module): it then says why and that this run is not journaled.
  let store: CliStore | undefined;
  try {
    store = await openCliStore(resolveDbPath(io.env, io.cwd, values.db), io.env);
  } catch (error) {
    io.stderr.write(`tinyagents demo: not journaling this run: ${describeFailure(error).message}\n`);
  }
  try {
    return await runDemo(prompt === "" ? undefined : prompt, io.stdout, {
      ...(Number.isFinite(delay) && io.env.TINYAGENTS_DEMO_DELAY_MS !== undefined ? { delayMs: delay } : {}),
      store,
      captureContent,
    });
  } finally {
    await store?.close();
  }
}
