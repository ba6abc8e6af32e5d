/**
 * @tinyagents/harness/builtin-tools — built-in tools: time (`current_time`, `resolve_time`), workspace
 * files (`read_file`, `list_dir`, opt-in `write_file`), a safe `calculator` and an allowlisted
 * `http_fetch`. Each declares its `ToolPolicy`; bad input comes back as an error result.
 */
export { calculatorTool } from "./calculator.js";
export { CALCULATOR_NAMES, CalculatorError, evaluateExpression } from "./calculator-parser.js";
export { type CurrentTimeOptions, currentTimeTool } from "./current-time.js";
export { CREDENTIAL_HEADERS, type HttpFetchOptions, httpFetchTool } from "./http-fetch.js";
export { type ListDirOptions, listDirTool } from "./list-dir.js";
export { type ReadFileOptions, readFileTool } from "./read-file.js";
export { type ResolveTimeOptions, resolveTimeTool, TIME_FORMATS } from "./resolve-time.js";
export {
  parseTimeExpression,
  TIME_EXPRESSION_HELP,
  type TimeExpressionContext,
  type TimeExpressionResult,
} from "./time-expression.js";
export {
  type CivilTime,
  civilAt,
  civilToInstant,
  formatRfc3339,
  isValidTimeZone,
  localTimeZone,
  offsetMinutes,
} from "./time-zone.js";
export { messageOf, toolError } from "./tool-error.js";
export { type BuiltinTool, type FileToolsOptions, fileTools, mathTools, timeTools } from "./toolsets.js";
export { UrlAllowlist } from "./url-allowlist.js";
export { type WriteFileOptions, writeFileTool } from "./write-file.js";
