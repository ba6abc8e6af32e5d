import { randomBytes } from "node:crypto";
import { constants, existsSync } from "node:fs";
import { type FileHandle, link, lstat, mkdir, open, rename, unlink } from "node:fs/promises";
import { relative, sep } from "node:path";

/**
 * Race-free file access under a verified root (Linux): the path is walked from the root's own
 * descriptor one component at a time through `/proc/self/fd/<dir>/<name>` with `O_NOFOLLOW`, so a
 * directory swapped for a symlink between the workspace check and the I/O fails the walk
 * (`ELOOP`/`ENOTDIR`) instead of leading outside. Elsewhere (no `/proc/self/fd`) the walk uses
 * plain paths with `O_NOFOLLOW` on every component, which narrows but does not close the race.
 */
const PROC_FD = "/proc/self/fd";
const HAS_PROC_FD = existsSync(PROC_FD);
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A directory opened by descriptor, and how to name entries inside it without re-resolving it. */
export interface OpenDirectory {
  handle: FileHandle;
  /** A path naming `name` inside this directory (through the descriptor on Linux). */
  entry(name: string): string;
  /** A path naming the directory itself (through the descriptor on Linux). */
  self: string;
  close(): Promise<void>;
}

/** Raised when a walk meets a symlink, a hard-linked file or a non-directory where it needs one. */
export class UnsafePathError extends Error {
  readonly code = "EUNSAFE";
}

function directory(handle: FileHandle, path: string): OpenDirectory {
  return {
    handle,
    self: HAS_PROC_FD ? `${PROC_FD}/${handle.fd}` : path,
    entry: (name) => (HAS_PROC_FD ? `${PROC_FD}/${handle.fd}/${name}` : `${path}${sep}${name}`),
    close: () => handle.close(),
  };
}

/** The components of real path `target` below real `root` (empty for the root itself). */
export function componentsBelow(root: string, target: string): string[] {
  const rel = relative(root, target);
  return rel === "" ? [] : rel.split(sep);
}

/** Open `root`, then each directory of `parts` without following links (creating them when `create`). */
export async function openDirectoryChain(
  root: string,
  parts: readonly string[],
  create = false,
): Promise<OpenDirectory> {
  let dir = directory(await open(root, DIR_FLAGS), root);
  let path = root;
  try {
    for (const part of parts) {
      const entry = dir.entry(part);
      if (create)
        await mkdir(entry).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== "EEXIST") throw error;
        });
      const next = await open(entry, DIR_FLAGS).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ELOOP") throw new UnsafePathError(`a directory on the path is a symbolic link`);
        throw error;
      });
      await dir.close();
      path = `${path}${sep}${part}`;
      dir = directory(next, path);
    }
    return dir;
  } catch (error) {
    await dir.close().catch(() => undefined);
    throw error;
  }
}

/** Options of {@link openFileForRead} and {@link writeFileAtomically}. */
export interface LinkPolicy {
  /** Accept files with more than one hard link (default false: they may be outside files). */
  allowHardLinks?: boolean;
}

/**
 * Open the file at real path `target` (inside real `root`) for reading, race-free: no link is
 * followed, and a regular file with more than one hard link is refused unless allowed.
 */
export async function openFileForRead(
  root: string,
  target: string,
  policy: LinkPolicy = {},
): Promise<FileHandle> {
  const parts = componentsBelow(root, target);
  const name = parts.pop();
  const dir = await openDirectoryChain(root, parts);
  try {
    if (name === undefined) return await open(root, DIR_FLAGS);
    const handle = await open(
      dir.entry(name),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    ).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ELOOP") throw new UnsafePathError("the file is a symbolic link");
      throw error;
    });
    const info = await handle.stat();
    if (info.isFile() && info.nlink > 1 && policy.allowHardLinks !== true) {
      await handle.close();
      throw new UnsafePathError(
        `the file has ${info.nlink} hard links (it may be a file outside the workspace)`,
      );
    }
    return handle;
  } finally {
    await dir.close();
  }
}

/**
 * Write `content` to real path `target` (inside real `root`): parents are created by the
 * race-free walk, the bytes go to a temporary file in the verified parent, which is then renamed
 * over the target (`overwrite`) or hard-linked to it (fails with `EEXIST` when it exists). The
 * target is never opened, so a symlink or an outside hard link there is replaced, not written
 * through; an existing multi-link file is still refused unless allowed.
 */
export async function writeFileAtomically(
  root: string,
  target: string,
  content: string,
  overwrite: boolean,
  policy: LinkPolicy = {},
): Promise<void> {
  const parts = componentsBelow(root, target);
  const name = parts.pop();
  if (name === undefined)
    throw Object.assign(new Error("the workspace root is a directory"), { code: "EISDIR" });
  const dir = await openDirectoryChain(root, parts, true);
  try {
    const final = dir.entry(name);
    const existing = await lstat(final).catch(() => undefined);
    if (existing !== undefined) {
      if (!overwrite) throw Object.assign(new Error("exists"), { code: "EEXIST" });
      if (existing.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
      if (existing.isFile() && existing.nlink > 1 && policy.allowHardLinks !== true) {
        throw new UnsafePathError(
          `the file has ${existing.nlink} hard links (it may be a file outside the workspace)`,
        );
      }
    }
    const temp = dir.entry(`.${name}.${randomBytes(6).toString("hex")}.tmp`);
    const handle = await open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
    try {
      await handle.writeFile(content, "utf8");
    } finally {
      await handle.close();
    }
    try {
      if (overwrite) await rename(temp, final);
      else {
        await link(temp, final);
        await unlink(temp);
      }
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
  } finally {
    await dir.close();
  }
}
