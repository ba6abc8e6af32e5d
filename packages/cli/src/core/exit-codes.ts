/**
 * Exit codes of the `tinyagents` command (documented in docs/cli.md):
 * - 0 `ok`: the command succeeded;
 * - 1 `failed`: the run failed (a tool or model error, a limit, a structured-output failure);
 * - 2 `usage`: bad command line (unknown command or flag, missing argument);
 * - 3 `config`: configuration problem (missing API key, unknown provider, bad model spec, store);
 * - 4 `unreachable`: a model endpoint or MCP server could not be reached;
 * - 5 `rateLimited`: the provider rate-limited the run or the quota is exhausted;
 * - 130 `cancelled`: interrupted with Ctrl-C.
 */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  config: 3,
  unreachable: 4,
  rateLimited: 5,
  cancelled: 130,
} as const;

/** One of the {@link EXIT} codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
