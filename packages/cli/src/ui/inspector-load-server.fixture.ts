/**
 * Test support: the inspector over a CLI store in a process of its own, so a test can measure the
 * server's memory (its /proc status) apart from the test runner's. Run with `node --import tsx`:
 * arguments: the store file, the token, the built web app's directory. Prints `{"port":N}`.
 */
import { openCliStore } from "../core/cli-store.js";
import { serveInspector } from "./inspector-server.js";

const [file, token, assetsDir] = process.argv.slice(2);
if (file === undefined || token === undefined || assetsDir === undefined)
  throw new Error("usage: inspector-load-server.fixture.ts <db> <token> <assets dir>");
const store = await openCliStore(file);
const server = await serveInspector({ ...store, token, assetsDir });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
process.on("SIGTERM", () => {
  void server
    .close()
    .then(() => store.close())
    .then(() => process.exit(0));
});
