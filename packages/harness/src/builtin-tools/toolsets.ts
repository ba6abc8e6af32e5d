import type { JsonObject } from "@tinyagents/inference";
import type { Tool } from "../tool/tool.js";
import { calculatorTool } from "./calculator.js";
import { type CurrentTimeOptions, currentTimeTool } from "./current-time.js";
import { listDirTool } from "./list-dir.js";
import { readFileTool } from "./read-file.js";
import { resolveTimeTool } from "./resolve-time.js";
import { writeFileTool } from "./write-file.js";

/** A built-in tool with its argument type erased. */
export type BuiltinTool = Tool<unknown, unknown, JsonObject>;

/** `current_time` and `resolve_time` (both side-effect free). */
export function timeTools(options: CurrentTimeOptions = {}): BuiltinTool[] {
  const zone = options.localTimeZone;
  return [currentTimeTool(options), resolveTimeTool(zone === undefined ? {} : { defaultTimeZone: zone })];
}

/** Options of {@link fileTools}. */
export interface FileToolsOptions {
  /** Include `write_file` (off by default: writing is an explicit opt-in). */
  write?: boolean;
  /** With `write`: require a human's approval per call (default true). */
  requireApproval?: boolean;
}

/**
 * The workspace file tools: `read_file` and `list_dir`, plus `write_file` when `write: true`.
 * They act only inside the run's workspace (`ContextOptions.workspace`); without one every path
 * is refused.
 */
export function fileTools(options: FileToolsOptions = {}): BuiltinTool[] {
  const tools = [readFileTool(), listDirTool()];
  if (options.write === true) {
    tools.push(
      writeFileTool(
        options.requireApproval === undefined ? {} : { requireApproval: options.requireApproval },
      ),
    );
  }
  return tools;
}

/** `calculator` alone, as a list (for symmetry with the other sets). */
export function mathTools(): BuiltinTool[] {
  return [calculatorTool()];
}
