import { lstat, readdir } from "node:fs/promises";
import type { JsonObject } from "@tinyagents/inference";
import { tool } from "../tool/define-tool.js";
import type { Tool } from "../tool/tool.js";
import { componentsBelow, type OpenDirectory, openDirectoryChain } from "../workspace/safe-open.js";
import { toolError } from "./tool-error.js";
import { describeFsError, workspacePath } from "./workspace-path.js";

/** Options of {@link listDirTool}. */
export interface ListDirOptions {
  /** List at most this many entries (default 500); the rest are counted, not shown. */
  maxEntries?: number;
}

/**
 * `list_dir`: the entries of a directory inside the run's workspace (default: the root), sorted
 * by name: `{ path, entries: [{ name, type: "file" | "dir" | "symlink" | "other", size? }], truncated }`.
 * Confined with `enforceWorkspace`. Policy: `read`, sandboxed.
 */
export function listDirTool(options: ListDirOptions = {}): Tool<unknown, unknown, JsonObject> {
  const maxEntries = options.maxEntries ?? 500;
  return tool({
    name: "list_dir",
    description: "List the files and directories in a workspace directory (default: the workspace root).",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "Directory relative to the workspace root (default .)" },
      },
      additionalProperties: false,
    },
    policy: { sideEffects: "read", requiresSandbox: true },
    idempotent: true,
    execute: async (args, ctx) => {
      const requested = typeof args.path === "string" && args.path !== "" ? args.path : ".";
      const resolved = await workspacePath(ctx.run, requested, "read");
      if ("error" in resolved) return toolError(resolved.error);
      let dir: OpenDirectory | undefined;
      try {
        // The directory is opened by the race-free walk and listed through its descriptor.
        dir = await openDirectoryChain(resolved.root, componentsBelow(resolved.root, resolved.path));
        const names = (await readdir(dir.self)).sort();
        const entries: JsonObject[] = [];
        for (const name of names.slice(0, maxEntries)) {
          const info = await lstat(dir.entry(name));
          const type = info.isSymbolicLink()
            ? "symlink"
            : info.isDirectory()
              ? "dir"
              : info.isFile()
                ? "file"
                : "other";
          entries.push(type === "file" ? { name, type, size: info.size } : { name, type });
        }
        return { path: requested, entries, truncated: names.length > maxEntries, total: names.length };
      } catch (error) {
        return toolError(describeFsError(error, requested));
      } finally {
        await dir?.close();
      }
    },
  });
}
