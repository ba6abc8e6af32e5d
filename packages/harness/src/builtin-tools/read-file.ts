import type { JsonObject } from "@tinyagents/inference";
import { tool } from "../tool/define-tool.js";
import type { Tool } from "../tool/tool.js";
import { openFileForRead } from "../workspace/safe-open.js";
import { toolError } from "./tool-error.js";
import { describeFsError, workspacePath } from "./workspace-path.js";

/** Options of {@link readFileTool}. */
export interface ReadFileOptions {
  /** Read at most this many bytes (default 256 KiB); longer files are cut and say so. */
  maxBytes?: number;
  /**
   * Read files that have more than one hard link (default false: such a file may be an outside
   * file linked into the workspace, so it is refused).
   */
  allowHardLinks?: boolean;
}

/**
 * `read_file`: read a UTF-8 text file inside the run's workspace (`ctx.run.workspace`, enforced
 * with `enforceWorkspace`: `..`, absolute paths elsewhere and escaping symlinks are refused).
 * Binary files, directories and missing files are error results. Policy: `read`, sandboxed.
 */
export function readFileTool(options: ReadFileOptions = {}): Tool<unknown, unknown, JsonObject> {
  const maxBytes = options.maxBytes ?? 256 * 1024;
  const allowHardLinks = options.allowHardLinks === true;
  return tool({
    name: "read_file",
    description:
      "Read a text file from the workspace. `path` is relative to the workspace root. " +
      `Files longer than ${maxBytes} bytes are cut.`,
    inputSchema: {
      type: "object",
      properties: { path: { type: "string", description: "File path relative to the workspace root" } },
      required: ["path"],
      additionalProperties: false,
    },
    policy: { sideEffects: "read", requiresSandbox: true },
    idempotent: true,
    execute: async (args, ctx) => {
      const requested = String(args.path);
      const resolved = await workspacePath(ctx.run, requested, "read");
      if ("error" in resolved) return toolError(resolved.error);
      try {
        // Opened without following links, verified by descriptor (see openFileForRead).
        const handle = await openFileForRead(resolved.root, resolved.path, { allowHardLinks });
        try {
          const info = await handle.stat();
          if (info.isDirectory())
            return toolError(`${requested} is a directory; use list_dir to see what it holds`);
          if (!info.isFile()) return toolError(`${requested} is not a regular file`);
          const size = Math.min(info.size, maxBytes);
          const buffer = Buffer.alloc(size);
          const { bytesRead } = await handle.read(buffer, 0, size, 0);
          const bytes = buffer.subarray(0, bytesRead);
          if (bytes.includes(0))
            return toolError(
              `${requested} looks like a binary file (it contains NUL bytes); read_file reads text only`,
            );
          const text = bytes.toString("utf8");
          return info.size > maxBytes
            ? `${text}\n[truncated: showed ${maxBytes} of ${info.size} bytes]`
            : text;
        } finally {
          await handle.close();
        }
      } catch (error) {
        return toolError(describeFsError(error, requested));
      }
    },
  });
}
