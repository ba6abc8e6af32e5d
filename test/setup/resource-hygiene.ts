/**
 * Vitest setup file (runs before every test file, see `vitest.config.ts`): after the file's
 * last test, nothing the file started may still be alive — no timer, socket, server, child
 * process, file handle or pending request. A leak fails the file, naming the leaked types.
 *
 * How: `process.getActiveResourcesInfo()` is sampled when the file starts (each test file runs in
 * its own worker, so this is the file's own baseline) and compared, type by type, after the file's
 * `afterAll` hooks ran. Resources get a grace period to close (sockets and file handles close
 * asynchronously; a server's `close()` callback fires a turn later): polled every 10 ms for up to
 * `TINYAGENTS_LEAK_GRACE_MS` (default 2,000 ms — generous for a loaded 2-core CI box; a clean file
 * passes on the first poll).
 *
 * Not seen by this check: `unref()`ed timers and handles (they do not keep the process alive, so
 * `getActiveResourcesInfo` omits them), pending promises and abort listeners (the fault-injection
 * tests check those directly).
 *
 * Allowlist (`RESOURCE_ALLOWLIST`: process-level, opened lazily by Node or the runner, never by
 * library code): `TTYWrap` and `PipeWrap` (stdio streams, opened the first time something writes
 * to them) and `SignalWrap` (a `process.on("SIGINT")` handler installed by the runner).
 *
 * Set `TINYAGENTS_LEAK_CHECK=off` to disable while debugging; to find where a leak comes from,
 * run it with `TINYAGENTS_LEAK_TRACE=1`: the report then prints where each live resource was created.
 */
import { afterAll } from "vitest";
import { activeResources, settleResources, traceResourceOrigins } from "./active-resources.js";

const GRACE_MS = Number(process.env.TINYAGENTS_LEAK_GRACE_MS ?? 2000);
const baseline = activeResources();
const origins = process.env.TINYAGENTS_LEAK_TRACE === "1" ? traceResourceOrigins() : undefined;

if (process.env.TINYAGENTS_LEAK_CHECK !== "off") {
  afterAll(async () => {
    const leaked = await settleResources(baseline, GRACE_MS);
    if (leaked.length > 0) {
      if (origins !== undefined)
        console.error(`live resources and where they were created:\n${origins().join("\n\n")}`);
      throw new Error(
        `resource leak: this test file left ${leaked.join(", ")} alive ${GRACE_MS} ms after its last test ` +
          "(timers, sockets, servers, child processes or file handles that were never closed). " +
          "Close them in the test, or fix the library code that opened them; see test/setup/resource-hygiene.ts.",
      );
    }
  });
}
