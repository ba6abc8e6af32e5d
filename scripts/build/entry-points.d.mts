/** One public entry point of a package, as listed in entry-points.json. */
export interface EntryPoint {
  /** What users import: `@tinyagents/harness/testkit`. */
  specifier: string;
  packageName: string;
  /** The package's folder, relative to the repo: `packages/harness`. */
  dir: string;
  /** `.` for the package root, else the subpath: `testkit`. */
  subpath: string;
  /** Relative to `dir`: `src/testkit/index.ts`. */
  source: string;
  js: string;
  dts: string;
  inApiReference: boolean;
}

/** The repository root. */
export const repoRoot: string;
/** Every entry point of entry-points.json, in list order. */
export function entryPoints(repo?: string): EntryPoint[];
/** What each derived list must hold: `[file, field path, value]` (`undefined`: the field is absent). */
export function derivedLists(repo?: string): [string, string[], unknown][];
/** The value at `fields` of `object` (undefined when a field is missing). */
export function fieldAt(object: unknown, fields: readonly string[]): unknown;
