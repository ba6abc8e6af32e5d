/**
 * The packed-tarball consumer (issue 35): what someone who installs the `npm pack` tarballs into a
 * new app gets. Offline: the tarballs are unpacked into the app's node_modules and each package's
 * DECLARED dependencies (only those) are linked from this repository's node_modules, so a
 * dependency a package uses but does not declare fails here; the app declares its own imports
 * (zod, @types/node). Then every README snippet compiles with a plain strict tsconfig
 * (`skipLibCheck: false`, `"type": "module"`, module nodenext), and the first one runs against a
 * loopback OpenAI-compatible server (127.0.0.1 only).
 *
 * Needs the built packages (`npm test` builds before the tests; alone: `npm run build`).
 * `.ci/pack-consumer` still does the slower rest: a real `npm install` of the tarballs, the
 * CommonJS consumer (require of the ES modules), every entry through require() and import(), and
 * a browser bundle.
 *
 * Integration tier: spawns npm, tar, tsc and node. Budget: ~25 s on a loaded 2-core machine
 * (timeout 120 s).
 */
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractSnippets, FRAGMENT_TAG } from "../docs/doc-snippets.js";
import { type LoopbackChatServer, startLoopbackChatServer } from "./loopback-chat-server.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PACKAGES = ["inference", "harness", "cli"];

function exec(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { ...options, encoding: "utf8", timeout: 90_000 }, (error, stdout, stderr) =>
      error === null
        ? resolve({ stdout, stderr })
        : reject(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stdout}${stderr}`)),
    );
  });
}

/** Link `name` from the repository's node_modules into `app`'s (a package the app or a dependency declared). */
function linkFromRepo(app: string, name: string, requiredBy: string): void {
  const target = join(app, "node_modules", name);
  if (existsSync(target)) return;
  const source = join(root, "node_modules", name);
  if (!existsSync(source))
    throw new Error(`${requiredBy} declares ${name}, which is not installed in the repository`);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(source, target, "dir");
}

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
}

let tmp: string;
let app: string;
let server: LoopbackChatServer;
let snippets: string[];

describe("the packed tarballs in a new app", () => {
  beforeAll(async () => {
    for (const pkg of PACKAGES) {
      if (!existsSync(join(root, "packages", pkg, "dist"))) {
        throw new Error(`packages/${pkg}/dist is missing: run \`npm run build\` first (npm test does)`);
      }
    }
    tmp = mkdtempSync(join(tmpdir(), "tinyagents-packed-"));
    const tarballs = join(tmp, "tarballs");
    mkdirSync(tarballs);
    // One npm for the three packs; no registry is asked (--offline), no script runs.
    await exec(
      "npm",
      [
        "pack",
        ...PACKAGES.flatMap((p) => ["--workspace", `packages/${p}`]),
        "--pack-destination",
        tarballs,
        "--ignore-scripts",
        "--offline",
        "--silent",
      ],
      { cwd: root, env: { ...process.env, npm_config_update_notifier: "false" } },
    );
    app = join(tmp, "app");
    mkdirSync(join(app, "node_modules"), { recursive: true });
    const manifests: Manifest[] = [];
    for (const file of readdirSync(tarballs)) {
      const unpacked = join(tmp, "unpacked", file);
      mkdirSync(unpacked, { recursive: true });
      await exec("tar", ["-xzf", join(tarballs, file), "-C", unpacked, "--strip-components=1"], { cwd: tmp });
      const manifest = JSON.parse(readFileSync(join(unpacked, "package.json"), "utf8")) as Manifest;
      const target = join(app, "node_modules", manifest.name);
      mkdirSync(dirname(target), { recursive: true });
      cpSync(unpacked, target, { recursive: true });
      manifests.push(manifest);
    }
    expect(manifests.map((m) => m.name).sort()).toEqual([
      "@tinyagents/harness",
      "@tinyagents/inference",
      "tinyagents",
    ]);
    for (const manifest of manifests) {
      for (const dep of Object.keys(manifest.dependencies ?? {})) {
        if (!dep.startsWith("@tinyagents/")) linkFromRepo(app, dep, manifest.name);
      }
    }
    const readme = extractSnippets("README.md", readFileSync(join(root, "README.md"), "utf8")).filter(
      (s) => !s.tags.includes(FRAGMENT_TAG),
    );
    snippets = readme.map((s) => s.code);
    // The app's own dependencies: what its code imports besides the packages, and Node's types.
    const imports = [...snippets.join("\n").matchAll(/from\s+"([^"./][^"]*)"/g)]
      .map((m) => m[1] as string)
      .filter((s) => !s.startsWith("@tinyagents/") && !s.startsWith("node:"))
      .map((s) => (s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : (s.split("/")[0] as string)));
    for (const name of new Set([...imports, "@types/node"])) linkFromRepo(app, name, "the app");
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    server = await startLoopbackChatServer();
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
  });

  it("compiles every README snippet strictly (skipLibCheck false) and runs the first one against a loopback server", async () => {
    expect(snippets.length).toBeGreaterThan(0);
    const first = snippets[0] as string;
    const pointed = first.replace(/https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?\/v1/g, server.baseUrl);
    expect(pointed).not.toBe(first); // the first snippet talks to a local OpenAI-compatible server
    writeFileSync(join(app, "first.mts"), pointed);
    const others = snippets.slice(1).map((code, i) => {
      const name = `readme-${i + 2}.mts`;
      writeFileSync(join(app, name), `${code}\nexport {};\n`);
      return name;
    });
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          skipLibCheck: false,
          target: "es2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          types: ["node"],
          outDir: "out",
        },
        files: ["first.mts", ...others],
      }),
    );
    const tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
    await exec(process.execPath, [tsc, "-p", app], { cwd: app });
    const run = await exec(process.execPath, [join(app, "out/first.mjs")], {
      cwd: app,
      env: { ...process.env, OPENAI_API_KEY: "sk-loopback", OPENAI_BASE_URL: server.baseUrl },
    });
    // The run answered (the tool was called, its result went back), then the streamed turn too.
    expect(run.stdout).toContain("It is sunny in Lisbon.");
    expect(run.stdout).toContain("completed");
    expect(run.stdout).not.toMatch(/cost: \$?0(\.0+)?\b/); // the loopback model has no price: never a bare 0
    expect(server.seen.length).toBeGreaterThanOrEqual(2);
    expect(server.seen.some((r) => r.withToolResult)).toBe(true);
    expect(server.seen.some((r) => r.stream)).toBe(true);
  }, 120_000);
});
