import { redactSecrets, registeredSecrets } from "@tinyagents/inference";
import type { CliIo, CliOutput } from "./cli-io.js";

/** A redacting output and the stream it writes to (kept for readline, which needs the stream). */
interface RedactedOutput extends CliOutput {
  readonly target: CliOutput;
}

/**
 * `io` with stdout and stderr masking every configured credential (API keys, custom header
 * values, base-URL query values — `registeredSecrets`) and key-shaped strings in each write:
 * answers that echo a gateway's headers, error messages, JSON output. The one choke point every
 * CLI line goes through.
 */
export function redactedIo(io: CliIo): CliIo {
  return { ...io, stdout: redactedOutput(io.stdout), stderr: redactedOutput(io.stderr) };
}

function redactedOutput(target: CliOutput): RedactedOutput {
  if (isRedacted(target)) return target;
  return {
    target,
    isTTY: target.isTTY,
    write: (chunk: string) => target.write(typeof chunk === "string" ? redactSecrets(chunk) : chunk),
  };
}

/** The stream under a redacting output (readline must drive the real terminal). */
export function rawOutput(out: CliOutput): CliOutput {
  return isRedacted(out) ? out.target : out;
}

function isRedacted(out: CliOutput): out is RedactedOutput {
  return (out as Partial<RedactedOutput>).target !== undefined;
}

/**
 * Streamed text held back just enough that a credential split across deltas is masked whole:
 * the last (longest registered secret - 1) characters wait for the next delta or `end()`.
 * Without registered secrets nothing is held.
 */
export class SecretSafeStream {
  private held = "";

  /** The text that can be written now (redacted); the rest is held. */
  push(text: string): string {
    const all = redactSecrets(this.held + text);
    const hold = Math.min(all.length, longestSecret() - 1);
    if (hold <= 0) {
      this.held = "";
      return all;
    }
    this.held = all.slice(all.length - hold);
    return all.slice(0, all.length - hold);
  }

  /** Everything still held, redacted (the stream ended). */
  end(): string {
    const rest = redactSecrets(this.held);
    this.held = "";
    return rest;
  }
}

function longestSecret(): number {
  // Sorted longest first.
  return registeredSecrets()[0]?.length ?? 0;
}
