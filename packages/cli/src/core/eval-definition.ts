import { existsSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { EvalDataset, EvalDefinition } from "@tinyagents/harness/evals";
import { TinyAgentsError } from "@tinyagents/inference";
import { CliError, usageError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";

/** A loaded eval definition with its dataset read and validated. */
export interface LoadedEval {
  file: string;
  definition: EvalDefinition;
  dataset: EvalDataset;
}

/**
 * Import the eval module at `file` (its default export, or an export named `evaluation`) and
 * load its dataset. `.js`/`.mjs` are imported as they are; `.ts`/`.mts` need a runtime that
 * strips types — tried as is first, then through `tsx` (an optional peer of the CLI).
 */
export async function loadEvalDefinition(file: string, cwd: string): Promise<LoadedEval> {
  const path = resolve(cwd, file);
  if (!existsSync(path)) throw usageError(`eval file ${path} does not exist`);
  const module = await importModule(path);
  const definition = (module.default ?? module.evaluation) as EvalDefinition | undefined;
  const bad = (what: string) =>
    new CliError(`${file}: ${what} (export default defineEval({ dataset, agent, scorers }))`, EXIT.config);
  if (typeof definition !== "object" || definition === null) throw bad("has no default export");
  if (definition.agent === undefined) throw bad("the definition has no agent");
  if (!Array.isArray(definition.scorers) || definition.scorers.length === 0)
    throw bad("the definition has no scorers");
  if (definition.dataset === undefined) throw bad("the definition has no dataset");
  const evals = await import("@tinyagents/harness/evals");
  try {
    const dataset =
      typeof definition.dataset === "string"
        ? await evals.loadDataset(resolve(dirname(path), definition.dataset))
        : evals.validateDataset(definition.dataset, {
            name: Array.isArray(definition.dataset)
              ? (definition.name ?? "dataset")
              : definition.dataset.name,
            file,
          });
    return { file: path, definition, dataset };
  } catch (error) {
    // A bad dataset is a configuration problem of the eval (exit 3), with the case and field named.
    if (TinyAgentsError.isInstance(error)) throw new CliError(error.message, EXIT.config);
    throw error;
  }
}

async function importModule(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  const typescript = [".ts", ".mts", ".cts"].includes(extname(path));
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (!typescript || (error as { code?: string }).code !== "ERR_UNKNOWN_FILE_EXTENSION") throw error;
  }
  let tsx: { tsImport(specifier: string, parent: string): Promise<Record<string, unknown>> };
  try {
    tsx = (await import("tsx/esm/api")) as typeof tsx;
  } catch {
    throw new CliError(
      `${path} is TypeScript: install tsx (npm install -D tsx) to run it, or write the eval as a .mjs file`,
      EXIT.config,
    );
  }
  return tsx.tsImport(url, import.meta.url);
}
