import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Runs against the BUILT packages, like packages/cli/test/packaging.integration.test.ts (`npm test` builds
// before Vitest). When an entry point is missing it builds inference and harness once.
const root = fileURLToPath(new URL("../../../..", import.meta.url));
const harnessDist = join(root, "packages/harness/dist");
const entries = {
  core: join(harnessDist, "index.js"),
  otel: join(harnessDist, "otel/index.js"),
  langfuse: join(harnessDist, "langfuse/index.js"),
};

function ensureBuilt(): void {
  const inference = join(root, "packages/inference/dist/index.js");
  if ([...Object.values(entries), inference].every((file) => existsSync(file))) return;
  execFileSync("npm", ["run", "build", "-w", "@tinyagents/inference", "-w", "@tinyagents/harness"], {
    cwd: root,
    stdio: "pipe",
  });
}

/** Module specifiers of static imports, re-exports, side-effect imports and (unless `staticOnly`) literal dynamic imports. */
function specifiers(code: string, staticOnly = false): string[] {
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    ...(staticOnly ? [] : [/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g]),
  ];
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => match[1] as string));
}

/** Packages of this workspace, resolved to their built entry points. */
const workspace: Record<string, string> = {
  "@tinyagents/inference": join(root, "packages/inference/dist/index.js"),
};

/** Every file reachable from `entry` (following relative and workspace imports) and every bare specifier seen. */
function importGraph(
  entry: string,
  staticOnly = false,
): { files: string[]; external: string[]; text: string } {
  const files = new Set<string>();
  const external = new Set<string>();
  let text = "";
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const code = readFileSync(file, "utf8");
    text += code;
    for (const specifier of specifiers(code, staticOnly)) {
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else if (workspace[specifier] !== undefined) visit(workspace[specifier]);
      else external.add(specifier);
    }
  };
  visit(entry);
  return { files: [...files], external: [...external], text };
}

describe("optional peers stay out of the core", () => {
  ensureBuilt();

  it("the built core (dist/index.js and everything it imports) never references @opentelemetry", () => {
    const graph = importGraph(entries.core);
    // The bundled entry (plus the chunk it shares with the subpaths) and @tinyagents/inference.
    expect(graph.files).toContain(entries.core);
    expect(graph.files.length).toBeGreaterThanOrEqual(3);
    expect(graph.files.some((f) => f.includes("/packages/inference/dist/"))).toBe(true);
    expect(graph.external.filter((s) => s.startsWith("@opentelemetry"))).toEqual([]);
    expect(graph.text).not.toContain("@opentelemetry");
    expect(graph.files.filter((f) => /[/\\](otel|langfuse)[/\\]/.test(f))).toEqual([]);
  });

  it("the detector works: the /otel entry does import @opentelemetry/api", () => {
    expect(importGraph(entries.otel).external).toContain("@opentelemetry/api");
  });

  it("the /langfuse entry loads OpenTelemetry only lazily: the OTLP exporter, on the first OTLP export", () => {
    const loaded = importGraph(entries.langfuse, true);
    expect(loaded.external.filter((s) => s.startsWith("@opentelemetry"))).toEqual([]);
    const reachable = importGraph(entries.langfuse).external.filter((s) => s.startsWith("@opentelemetry"));
    expect(reachable).toEqual(["@opentelemetry/exporter-trace-otlp-proto"]);
  });

  it("both subpaths load in a plain Node process through the exports map", () => {
    const out = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const otel = await import("@tinyagents/harness/otel");
         const langfuse = await import("@tinyagents/harness/langfuse");
         const core = await import("@tinyagents/harness");
         console.log(JSON.stringify([typeof otel.OtelTracer, typeof langfuse.LangfuseClient, "OtelTracer" in core, "LangfuseClient" in core]));`,
      ],
      { cwd: root, encoding: "utf8" },
    );
    expect(JSON.parse(out)).toEqual(["function", "function", false, false]);
  });
});
