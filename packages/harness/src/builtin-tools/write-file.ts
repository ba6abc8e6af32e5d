import type { JsonObject } from "@tinyagents/inference";
import { tool } from "../tool/define-tool.js";
import type { Tool } from "../tool/tool.js";
import { writeFileAtomically } from "../workspace/safe-open.js";
import { toolError } from "./tool-error.js";
import { describeFsError, workspacePath } from "./workspace-path.js";

/** Options of {@link writeFileTool}. Writing is never on by default: building this tool is the opt-in. */
export interface WriteFileOptions {
  /**
   * Mark every call as needing a human's approval (`policy.requiresApproval`, enforced by
   * `humanApprovalMiddleware`). Default true; set false only for trusted, sandboxed runs.
   */
  requireApproval?: boolean;
  /** Largest content accepted, in UTF-8 bytes (default 1 MiB). */
  maxBytes?: number;
  /** Replace files that have more than one hard link (default false: refused). */
  allowHardLinks?: boolean;
}

/**
 * `write_file`: create or replace a UTF-8 text file inside the run's workspace (parents are
 * created). Writes need a `read_write` workspace (`enforceWorkspace(..., "write")`); replacing an
 * existing file needs `overwrite: true`. Policy: `destructive` (it can replace files), sandboxed,
 * and by default `requiresApproval` — register `humanApprovalMiddleware()` (or a `decide` rule)
 * to grant it.
 */
export function writeFileTool(options: WriteFileOptions = {}): Tool<unknown, unknown, JsonObject> {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const allowHardLinks = options.allowHardLinks === true;
  return tool({
    name: "write_file",
    description:
      "Write a text file in the workspace (parent directories are created). " +
      "Set `overwrite: true` to replace an existing file.",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path relative to the workspace root" },
        content: { type: "string", description: "The full text to write" },
        overwrite: { type: "boolean", description: "Replace the file if it exists (default false)" },
      },
      required: ["path", "content"],
      additionalProperties: false,
    },
    policy: {
      sideEffects: "destructive",
      requiresSandbox: true,
      requiresApproval: options.requireApproval ?? true,
    },
    execute: async (args, ctx) => {
      const requested = String(args.path);
      const content = String(args.content);
      const bytes = Buffer.byteLength(content, "utf8");
      if (bytes > maxBytes)
        return toolError(`the content is ${bytes} bytes; write_file accepts at most ${maxBytes}`);
      const resolved = await workspacePath(ctx.run, requested, "write");
      if ("error" in resolved) return toolError(resolved.error);
      try {
        // Temp file in the verified parent, then rename/link: never writes through a link.
        await writeFileAtomically(resolved.root, resolved.path, content, args.overwrite === true, {
          allowHardLinks,
        });
        return `wrote ${bytes} bytes to ${requested}`;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") {
          return toolError(`${requested} already exists; pass overwrite: true to replace it`);
        }
        return toolError(describeFsError(error, requested));
      }
    },
  });
}
