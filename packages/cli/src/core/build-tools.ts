import type { AnyTool } from "@tinyagents/harness";
import { calculatorTool, fileTools, httpFetchTool, timeTools } from "@tinyagents/harness/builtin-tools";
import { usageError } from "./cli-error.js";

/** The names `--tools` accepts. */
export const TOOLSETS: Readonly<Record<string, string>> = {
  time: "current_time, resolve_time",
  fs: "read_file, list_dir (read-only, confined to the current directory)",
  calc: "calculator",
  http: "http_fetch (GET only; needs --allow-host)",
};

/**
 * The built-in tools named by `--tools` (comma-separated, repeatable). `http` needs an allowlist
 * (`--allow-host` or `TINYAGENTS_HTTP_ALLOW`); unknown names are usage errors listing the known ones.
 */
export function buildTools(names: readonly string[], allowHosts: readonly string[]): AnyTool[] {
  const tools: AnyTool[] = [];
  const wanted = new Set(
    names
      .flatMap((n) => n.split(","))
      .map((n) => n.trim().toLowerCase())
      .filter((n) => n !== ""),
  );
  for (const name of wanted) {
    switch (name) {
      case "time":
        tools.push(...timeTools());
        break;
      case "fs":
        tools.push(...fileTools());
        break;
      case "calc":
      case "calculator":
        tools.push(calculatorTool());
        break;
      case "http":
        if (allowHosts.length === 0) {
          throw usageError(
            "--tools http needs an allowlist: add --allow-host api.example.com (repeatable) or set TINYAGENTS_HTTP_ALLOW",
          );
        }
        tools.push(httpFetchTool({ allow: allowHosts }));
        break;
      default:
        throw usageError(`unknown tool set "${name}"; known: ${Object.keys(TOOLSETS).join(", ")}`);
    }
  }
  return tools;
}
