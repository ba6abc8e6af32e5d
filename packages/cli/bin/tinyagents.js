#!/usr/bin/env node
// The `tinyagents` bin. A committed, executable file: npm links a bin on `npm install` only if
// its file exists then, which on a fresh clone is before any build, and it never chmods a file a
// later build writes. The command line itself is dist/bin.js (built from src/bin.ts).
import("../dist/bin.js").catch((error) => {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("/dist/bin.js'")) {
    console.error("tinyagents: the command line is not built yet; run `npm run build` in the repository");
    process.exitCode = 1;
    return;
  }
  throw error;
});
