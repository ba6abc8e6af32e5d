import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import type { DocSnippet } from "./doc-snippets.js";

/**
 * The info-string tag that marks a TypeScript block as runnable offline as written:
 * ```` ```ts run ````. Besides being type-checked, such a block is executed (see
 * {@link runSnippets}); it must use the testkit's scripted models or a loopback server it starts.
 */
export const RUN_TAG = "run";

/** True when `snippet` is tagged ```` ```ts run ````. */
export function isRunnable(snippet: DocSnippet): boolean {
  return snippet.tags.includes(RUN_TAG);
}

/** One executed snippet: `failure` is `undefined` when it exited 0 within the time limit. */
export interface SnippetRun {
  snippet: DocSnippet;
  /** `file:line: why`, the Markdown file and the line of the snippet's opening fence. */
  failure: string | undefined;
}

export interface RunSnippetsOptions {
  /** Kill a snippet that has not exited after this long (default 20 s). */
  timeoutMs?: number;
  /** How many snippets run at once (default 2: the machine is shared). */
  concurrency?: number;
}

// Loaded into every snippet process before the snippet (`node --import`): any connection to a
// host other than loopback fails at once and names the host, so a snippet that would need the
// network fails loudly here instead of hanging or passing on a developer's connected machine.
const OFFLINE_GUARD = `
import net from "node:net";
const loopback = (host) => host === undefined || host === "localhost" || host === "::1" || /^127\\./.test(host) || host === "[::1]";
const refuse = (host) => { throw new Error("doc snippet tried to reach " + host + ": runnable snippets must stay offline (loopback only)"); };
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(typeof input === "string" || input instanceof URL ? String(input) : input.url);
  if (!loopback(url.hostname)) return Promise.reject(new Error("doc snippet tried to fetch " + url.origin + ": runnable snippets must stay offline (loopback only)"));
  return realFetch(input, init);
};
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = args[0];
  const options = typeof first === "object" && first !== null && !Array.isArray(first) ? first : undefined;
  const host = options !== undefined ? options.host : typeof args[1] === "string" ? args[1] : undefined;
  if (options?.path === undefined && !loopback(host)) refuse(host);
  return connect.apply(this, args);
};
`;

/**
 * Execute each snippet as its own ES module in a child `node` process: transpiled (types erased,
 * the code otherwise as written) into `dir`, which must be inside the repository so bare imports
 * resolve, like the type-check, to the BUILT packages (`npm run build` first). Each process
 * starts in a fresh temporary working directory (files a snippet writes go there), with no
 * provider API keys in its environment and only loopback connections allowed. A snippet fails
 * when it throws, exits non-zero or outlives `timeoutMs`.
 */
export async function runSnippets(
  snippets: readonly DocSnippet[],
  dir: string,
  options: RunSnippetsOptions = {},
): Promise<SnippetRun[]> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const guard = join(dir, "offline-guard.mjs");
  writeFileSync(guard, OFFLINE_GUARD);
  const results: SnippetRun[] = new Array(snippets.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < snippets.length) {
      const index = next++;
      const snippet = snippets[index] as DocSnippet;
      results[index] = { snippet, failure: await runOne(snippet, index, dir, guard, timeoutMs) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, snippets.length) }, worker));
  return results;
}

async function runOne(
  snippet: DocSnippet,
  index: number,
  dir: string,
  guard: string,
  timeoutMs: number,
): Promise<string | undefined> {
  const at = `${snippet.file}:${snippet.line}`;
  const name = `${snippet.file.replace(/[^\w]+/g, "_")}_L${snippet.line}_${index}`;
  // An inline source map (run with --enable-source-maps) makes a stack trace name the line in the
  // snippet's own text, which `thrownAt` turns into a line of the Markdown file.
  const output = ts.transpileModule(snippet.code, {
    fileName: `${name}.ts`,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, inlineSourceMap: true },
    reportDiagnostics: false,
  });
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, output.outputText);
  const cwd = mkdtempSync(join(tmpdir(), "tinyagents-doc-snippet-"));
  try {
    const outcome = await new Promise<{ code: number | null; signal: string | null; stderr: string }>(
      (resolve) => {
        execFile(
          process.execPath,
          ["--enable-source-maps", "--import", pathToFileURL(guard).href, file],
          { cwd, timeout: timeoutMs, killSignal: "SIGKILL", env: snippetEnv(), maxBuffer: 16 * 1024 * 1024 },
          (error, _stdout, stderr) => {
            const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
            resolve({ code, signal: error?.signal ?? null, stderr: String(stderr) });
          },
        );
      },
    );
    if (outcome.code === 0) return undefined;
    const why =
      outcome.signal !== null
        ? `did not finish within ${timeoutMs} ms (killed with ${outcome.signal})`
        : `exited with code ${outcome.code}`;
    return `${at}: ${why}${thrownAt(snippet, name, outcome.stderr)}${excerpt(outcome.stderr)}`;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** ` (thrown at file:line)`: the first stack frame inside the snippet, as a Markdown line. */
function thrownAt(snippet: DocSnippet, name: string, stderr: string): string {
  const frame = new RegExp(`${name}\\.ts:(\\d+):\\d+`).exec(stderr);
  return frame === null ? "" : ` (thrown at ${snippet.file}:${snippet.line + Number(frame[1])})`;
}

/** The child's environment: enough to run Node, and none of the caller's keys or Node options. */
function snippetEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1" };
  for (const key of ["PATH", "SystemRoot", "TEMP", "TMP", "TMPDIR"]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** The start (the error) and the end (where it was thrown) of a child's stderr, indented. */
function excerpt(stderr: string): string {
  const lines = stderr.trim().split("\n").filter(Boolean);
  const shown = lines.length <= 16 ? lines : [...lines.slice(0, 6), "...", ...lines.slice(-10)];
  return shown.length === 0 ? "" : `\n    ${shown.join("\n    ")}`;
}
