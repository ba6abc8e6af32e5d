import { COMMON_OPTIONS, parseCommandArgs } from "../args.js";
import type { CliIo } from "../cli-io.js";
import { runDemo } from "../demo/run-demo.js";
import { EXIT } from "../exit-codes.js";

/** The `--help` text of `tinyagents demo`. */
export const DEMO_HELP = `tinyagents demo ["<prompt>"]

The offline showcase (what \`npm start\` runs): a scripted multi-step agent run with tools, a
sub-agent and structured output, streamed, then the cost and usage summary. No key, no network:
the model is the scripted demo model, not an LLM, and the output says so.
`;

/** `tinyagents demo`: the offline, scripted showcase. */
export async function demoCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("demo", argv, { help: COMMON_OPTIONS.help });
  if (values.help === true) {
    io.stdout.write(DEMO_HELP);
    return EXIT.ok;
  }
  const prompt = positionals.join(" ").trim();
  const delay = Number(io.env.TINYAGENTS_DEMO_DELAY_MS);
  return runDemo(
    prompt === "" ? undefined : prompt,
    io.stdout,
    Number.isFinite(delay) && io.env.TINYAGENTS_DEMO_DELAY_MS !== undefined ? { delayMs: delay } : {},
  );
}
