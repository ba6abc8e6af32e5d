/**
 * Delete from `built` (the built copy of the package's `distName` folder) every `.d.ts` that no
 * type entry point of `manifest` reaches; returns how many files were removed.
 */
export function pruneDeclarations(
  built: string,
  manifest: Record<string, unknown>,
  distName?: string,
): number;
