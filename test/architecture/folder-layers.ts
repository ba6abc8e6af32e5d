// Folders are layers: the check behind folder-layers.test.ts. Each package's src/ folders are
// listed as layers, bottom first (folder-layers.json); an import between two folders must go
// to a strictly lower layer, which also rules out folder cycles. A folder's index.ts re-exporting
// its own subfolders is the folder's entry, above them, and makes no arrow (as in
// ../shared/tools/import-cycles.mjs --folders).
import * as path from "node:path";
import { type ImportGraph, importCycles, importGraph } from "./source-graph.js";

/** The layers of each source root (`packages/<name>/src`, relative to the repo): folder names, bottom layer first. */
export type FolderLayers = Record<string, string[][]>;

/** What breaks the layering; every list empty means the folders form layers. */
export interface LayerReport {
  /** Folders with source files that no layer lists (`root: folder`). */
  unranked: string[];
  /** Folders a layer lists that have no source file (`root: folder`). */
  stale: string[];
  /** Folders listed twice (`root: folder`). */
  duplicated: string[];
  /** Imports that go sideways or up, each with the file import that makes it. */
  upward: string[];
  /** Folder cycles (each as its folders), whatever the ranks say. */
  cycles: string[][];
}

const posix = (p: string) => p.split(path.sep).join("/");

/** The source root (`packages/x/src`, `packages/x/ui-app/src`) and folder (`.` for the root) of `file`. */
function place(repo: string, file: string): { root: string; folder: string } | undefined {
  const parts = posix(path.relative(repo, file)).split("/");
  const src = parts.indexOf("src");
  if (src < 0) return undefined;
  const folder = parts.slice(src + 1, -1).join("/");
  return { root: parts.slice(0, src + 1).join("/"), folder: folder === "" ? "." : folder };
}

/** True when `file` is a folder's index.ts and `target` sits in that folder's own subtree. */
function entryReexport(from: { folder: string }, file: string, to: { folder: string }): boolean {
  if (path.basename(file) !== "index.ts") return false;
  return from.folder === "." || to.folder.startsWith(`${from.folder}/`);
}

/** Check the source files under `repo/packages` against `layers`. */
export function checkFolderLayers(repo: string, layers: FolderLayers, graph?: ImportGraph): LayerReport {
  const files = graph ?? importGraph([path.join(repo, "packages")]);
  const report: LayerReport = { unranked: [], stale: [], duplicated: [], upward: [], cycles: [] };
  const rank = new Map<string, number>();
  for (const [root, stack] of Object.entries(layers)) {
    stack.forEach((layer, index) => {
      for (const folder of layer) {
        const key = `${root}: ${folder}`;
        if (rank.has(key)) report.duplicated.push(key);
        rank.set(key, index);
      }
    });
  }
  const seen = new Set<string>();
  const folderGraph: ImportGraph = new Map();
  for (const [file, targets] of files) {
    const from = place(repo, file);
    if (from === undefined) continue;
    const fromKey = `${from.root}: ${from.folder}`;
    seen.add(fromKey);
    if (!rank.has(fromKey)) continue;
    const arrows = folderGraph.get(fromKey) ?? new Set<string>();
    folderGraph.set(fromKey, arrows);
    for (const target of targets) {
      const to = place(repo, target);
      if (to === undefined || to.root !== from.root || to.folder === from.folder) continue;
      if (entryReexport(from, file, to)) continue;
      const toKey = `${to.root}: ${to.folder}`;
      arrows.add(toKey);
      const fromRank = rank.get(fromKey) as number;
      const toRank = rank.get(toKey);
      if (toRank === undefined || toRank < fromRank) continue;
      report.upward.push(
        `${posix(path.relative(repo, file))} -> ${posix(path.relative(repo, target))}: ` +
          `${from.folder} (layer ${fromRank}) imports ${to.folder} (layer ${toRank}) of ${from.root}`,
      );
    }
  }
  for (const key of seen) if (!rank.has(key)) report.unranked.push(key);
  for (const key of rank.keys()) if (!seen.has(key)) report.stale.push(key);
  report.cycles = importCycles(folderGraph);
  report.unranked.sort();
  report.stale.sort();
  report.upward.sort();
  return report;
}
