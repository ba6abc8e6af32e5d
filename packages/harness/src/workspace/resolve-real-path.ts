import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

/** Symbolic links followed at most while resolving one path (loops fail past it). */
const MAX_LINK_HOPS = 40;

/**
 * The real path of absolute path `target`, symlinks resolved, even when it does not exist yet:
 * the nearest existing ancestor is resolved with `fs.realpath` and the missing tail appended.
 * A dangling symlink on the way is followed to where it points (a write through it would land
 * there). Throws the file-system error for anything else (permissions, loops past 40 hops).
 */
export async function resolveRealPath(target: string, hops = 0): Promise<string> {
  const missing: string[] = [];
  let current = target;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      const link = await lstat(current).catch(() => undefined);
      if (link?.isSymbolicLink()) {
        if (hops >= MAX_LINK_HOPS) throw error;
        const pointsTo = resolve(dirname(current), await readlink(current));
        const real = await resolveRealPath(pointsTo, hops + 1);
        return missing.length === 0 ? real : join(real, ...missing.reverse());
      }
      const parent = dirname(current);
      if (parent === current) throw error;
      missing.push(basename(current));
      current = parent;
    }
  }
}
