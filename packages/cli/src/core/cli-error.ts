import { ProviderError, TinyAgentsError } from "@tinyagents/inference";
import { EXIT, type ExitCode } from "./exit-codes.js";

/** An error the CLI reports as one clear message with a specific exit code. */
export class CliError extends Error {
  override name = "CliError";
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** A usage error (bad flags, missing argument); the message should say what to type instead. */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}

/**
 * The message and exit code for any error: rate limits say when to retry, unreachable
 * endpoints name the URL (the provider's message already does), missing keys name the
 * variable, unknown providers list the known ones (the `createModel` messages do both).
 */
export function describeFailure(error: unknown): { message: string; exitCode: ExitCode } {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  const provider = findProviderError(error);
  if (provider !== undefined) {
    if (provider.kind === "rate_limited" || provider.kind === "quota_exhausted") {
      const wait =
        provider.kind === "quota_exhausted"
          ? "the quota is exhausted: check your plan or billing, then try again"
          : provider.retryAfterMs === undefined
            ? "wait a little and try again"
            : `retry in ${Math.ceil(provider.retryAfterMs / 1000)} s`;
      return {
        message: `rate limited by ${provider.provider}: ${wait} (${provider.message})`,
        exitCode: EXIT.rateLimited,
      };
    }
    if (provider.status === undefined && /could not reach/i.test(provider.message)) {
      return { message: provider.message, exitCode: EXIT.unreachable };
    }
    if (provider.status === 401 || provider.status === 403) {
      return { message: `${provider.message} — check the API key`, exitCode: EXIT.config };
    }
    return { message: provider.message, exitCode: EXIT.failed };
  }
  if (TinyAgentsError.isInstance(error)) {
    if (error.code === "cancelled") return { message: "cancelled", exitCode: EXIT.cancelled };
    const field = error.details?.field;
    if (
      error.code === "validation" &&
      (field === "apiKey" || field === "model" || field === "TINYAGENTS_MODEL" || field === "baseUrl")
    ) {
      return { message: error.message, exitCode: EXIT.config };
    }
    return { message: `${error.message} [${error.code}]`, exitCode: EXIT.failed };
  }
  return { message: error instanceof Error ? error.message : String(error), exitCode: EXIT.failed };
}

function findProviderError(error: unknown): ProviderError | undefined {
  for (let current = error, depth = 0; current !== undefined && depth < 5; depth++) {
    if (current instanceof ProviderError) return current;
    if (TinyAgentsError.isInstance(current) && typeof (current as Partial<ProviderError>).kind === "string") {
      return current as ProviderError;
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}
