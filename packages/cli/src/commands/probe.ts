import { displayUrl, type ProbeCheck, probeOpenAiCompatible } from "@tinyagents/inference";
import { COMMON_OPTIONS, parseCommandArgs, positiveInt } from "../core/args.js";
import { CliError, usageError } from "../core/cli-error.js";
import type { CliIo } from "../core/cli-io.js";
import { EXIT } from "../core/exit-codes.js";

/** The `--help` text of `tinyagents probe`. */
export const PROBE_HELP = `tinyagents probe <base-url> --model M [--key-env VAR] [--timeout-ms N] [--json]

The capability report of an OpenAI-compatible endpoint (llama.cpp, vLLM, LM Studio, Ollama /v1,
a hosted API): plain answer, streaming, tool calls (unary and streamed) and strict JSON output,
each tried once with a small request.

Example: tinyagents probe http://localhost:8080/v1 --model qwen3-8b

Options:
  -m, --model M         the model id to ask for (required)
      --key-env VAR     read the API key from this environment variable (never pass keys as flags)
      --timeout-ms N    per check (default 30000)
      --json            the report as JSON
  -h, --help            this help
Exit code 0 when the endpoint answered, 4 when it could not be reached.
`;

/** `tinyagents probe`: what an OpenAI-compatible endpoint can do. */
export async function probeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("probe", argv, {
    help: COMMON_OPTIONS.help,
    model: { type: "string", short: "m" },
    "key-env": { type: "string" },
    "timeout-ms": { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help === true) {
    io.stdout.write(PROBE_HELP);
    return EXIT.ok;
  }
  const [baseUrl] = positionals;
  if (baseUrl === undefined || !/^https?:\/\//i.test(baseUrl)) {
    throw usageError(
      "probe needs the endpoint's base URL: tinyagents probe http://localhost:8080/v1 --model M",
    );
  }
  if (values.model === undefined)
    throw usageError("probe needs --model M (the model id the endpoint serves)");
  let apiKey: string | undefined;
  if (values["key-env"] !== undefined) {
    apiKey = io.env[values["key-env"]];
    if (apiKey === undefined || apiKey === "") {
      throw new CliError(`--key-env ${values["key-env"]}: that environment variable is not set`, EXIT.config);
    }
  }
  const report = await probeOpenAiCompatible(baseUrl, values.model, {
    apiKey,
    timeoutMs: positiveInt("timeout-ms", values["timeout-ms"]) ?? 30_000,
  });
  const checks: [string, ProbeCheck][] = [
    ["text", report.text],
    ["streaming", report.streaming],
    ["tool calls", report.tools],
    ["streamed tool calls", report.streamingToolChunks],
    ["structured output", report.structuredOutput],
  ];
  const unreachable = checks.every(([, c]) => !c.ok && /could not reach/i.test(c.error ?? ""));
  if (values.json === true) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    io.stdout.write(`probe ${report.baseUrl} · model ${report.model}\n`);
    for (const [name, c] of checks) {
      io.stdout.write(
        `  ${c.ok ? "yes" : "no "}  ${name.padEnd(20)} ${c.ok ? (c.detail ?? "") : (c.error ?? "")}\n`,
      );
    }
  }
  if (unreachable) {
    io.stderr.write(
      `could not reach ${displayUrl(baseUrl)}: is the server running? (${report.text.error ?? ""})\n`,
    );
    return EXIT.unreachable;
  }
  return EXIT.ok;
}
