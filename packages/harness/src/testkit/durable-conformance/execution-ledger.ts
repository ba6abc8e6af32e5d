import { appendFileSync, existsSync, readFileSync } from "node:fs";

/**
 * One actual execution of a step's work, as the conformance scenario records it: a model call
 * (`kind: "model"`, recorded inside the model step) or a tool's `execute` (`kind: "tool"`, with
 * the tool's name, its side-effect contract and the idempotency key it was given).
 */
export interface LedgerEntry {
  kind: "model" | "tool";
  runId: string;
  callId: string;
  /** The tool's name (tool entries). */
  tool?: string;
  /** The tool's side-effect contract (tool entries). */
  sideEffects?: "at-least-once" | "once";
  /** `ctx.idempotencyKey` as the tool saw it (tool entries). */
  idempotencyKey?: string;
  /** The process that executed it (which worker). */
  pid: number;
}

/**
 * An append-only execution ledger in a file: one JSON line per execution, written synchronously
 * (`appendFileSync`) BEFORE the work starts, so an execution cut by a SIGKILL during its work is
 * still counted. Any number of processes may append to the same file (each line is one small
 * `write` in append mode). Read it back with {@link readLedger}, judge it with `checkLedger`.
 */
export class ExecutionLedger {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** Append one execution (synchronous: on return the line is in the file). */
  record(entry: LedgerEntry): void {
    appendFileSync(this.path, `${JSON.stringify(entry)}\n`);
  }
}

/**
 * Every entry of the ledger file at `path`, in append order (a missing file: none). A torn last
 * line (a writer killed mid-write) is skipped; any other malformed line throws.
 */
export function readLedger(path: string): LedgerEntry[] {
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, "utf8").split("\n");
  const entries: LedgerEntry[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === "") continue;
    try {
      entries.push(JSON.parse(line) as LedgerEntry);
    } catch (error) {
      if (i === lines.length - 1) continue;
      throw new Error(`ledger ${path}: line ${i + 1} is not JSON: ${String(error)}`);
    }
  }
  return entries;
}
