import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { type JsonValue, TinyAgentsError, validationError } from "@tinyagents/inference";
import { validateDataset } from "./dataset.js";
import type { EvalDataset } from "./eval-case.js";

/** Options of {@link parseDataset} and {@link loadDataset}. */
export interface DatasetFileOptions {
  /** `jsonl` (one case per line) or `json` (an array, or `{ name, cases }`). Default: from the file extension. */
  format?: "jsonl" | "json";
  /** Dataset name when the content has none (default: the file name without extension). */
  name?: string;
  /** Shown in errors. */
  file?: string;
}

/**
 * Parse dataset text. JSONL: one case per non-blank line (`//` lines are comments); a line that is
 * not JSON is named by its number. Then validated like an inline dataset (see `validateDataset`).
 *
 * @throws TinyAgentsError `validation` naming the file, line, case and field.
 */
export function parseDataset(text: string, options: DatasetFileOptions = {}): EvalDataset {
  const format =
    options.format ?? (options.file !== undefined && extname(options.file) === ".json" ? "json" : "jsonl");
  const where = options.file ?? `${format} text`;
  const base = { ...(options.file === undefined ? {} : { file: options.file }) };
  if (format === "json") {
    let value: JsonValue;
    try {
      value = JSON.parse(text) as JsonValue;
    } catch (error) {
      throw validationError(`dataset ${where} is not valid JSON: ${(error as Error).message}`, {
        field: "file",
      });
    }
    return validateDataset(value, { ...base, name: options.name ?? datasetName(options.file) });
  }
  const cases: JsonValue[] = [];
  const lines: number[] = [];
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("//")) continue;
    try {
      cases.push(JSON.parse(trimmed) as JsonValue);
    } catch (error) {
      throw validationError(
        `dataset ${where}, line ${index + 1} is not valid JSON (${(error as Error).message}); each line must be one case object`,
        { field: "line", line: index + 1 },
      );
    }
    lines.push(index + 1);
  }
  return validateDataset(cases, { ...base, lines, name: options.name ?? datasetName(options.file) });
}

/**
 * Read and parse a dataset file (`.jsonl`, or `.json`).
 *
 * @throws TinyAgentsError `storage` when the file cannot be read, `validation` for bad content.
 */
export async function loadDataset(
  path: string,
  options: Omit<DatasetFileOptions, "file"> = {},
): Promise<EvalDataset> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new TinyAgentsError("storage", `cannot read dataset ${path}: ${(error as Error).message}`, {
      cause: error,
      details: { field: "file", file: path },
    });
  }
  return parseDataset(text, {
    ...options,
    file: path,
    ...(options.name === undefined ? {} : { name: options.name }),
  });
}

function datasetName(file: string | undefined): string {
  if (file === undefined) return "dataset";
  const name = basename(file, extname(file));
  return name === "" ? "dataset" : name;
}
