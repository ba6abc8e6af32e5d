// Child-process plumbing. The parent runs every measurement in a fresh `node` process; the child
// prints exactly one JSON line (its result) on stdout as its last line, or exits non-zero.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = fileURLToPath(new URL("..", import.meta.url));

/** Run `bench/<script>` in a fresh node process and parse its result line. */
export function runChild(script, args = [], { nodeFlags = [], timeoutMs = 180_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...nodeFlags, fileURLToPath(new URL(`../${script}`, import.meta.url)), ...args],
      {
        cwd: BENCH_DIR,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, NODE_ENV: "production" },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const what = `${script} ${args.join(" ")}`;
      if (code !== 0) {
        const error = new Error(
          timedOut
            ? `${what} did not finish within its ${timeoutMs / 1000} s time box`
            : `${what} failed (${signal ?? `exit ${code}`}):\n${stderr.trim() || stdout.trim()}`,
        );
        error.timedOut = timedOut;
        reject(error);
        return;
      }
      const last = stdout.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`${what} printed no result line:\n${stdout}\n${stderr}`));
      }
    });
  });
}

/** In a child: print the result line and exit. Unhandled failures exit non-zero by themselves. */
export function emit(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** In a child: throw unless `actual === expected`, naming what was checked. */
export function expectEqual(what, actual, expected) {
  if (actual !== expected) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}
