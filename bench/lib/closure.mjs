// W4 installed size: the dependency closure of a package as npm would install it — its
// dependencies, optional dependencies and required (non-optional) peer dependencies, transitively
// — resolved through a package-lock.json the way Node resolves (nearest node_modules upwards).
// Registry packages are measured on disk (file bytes, nested node_modules excluded: they are
// packages of their own); workspace packages by what `npm pack` would publish (unpackedSize).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

function dirBytes(dir) {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) bytes += dirBytes(path);
    else if (entry.isFile()) bytes += statSync(path).size;
  }
  return bytes;
}

function packedBytes(dir) {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return JSON.parse(out)[0].unpackedSize;
}

/** The lock key `name` resolves to from the package installed at `from` (Node's upward search). */
function resolveKey(packages, from, name) {
  let dir = from;
  for (;;) {
    const key = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (packages[key] !== undefined) return key;
    if (dir === "") return undefined;
    dir = dir.includes("/") ? dir.slice(0, dir.lastIndexOf("/")) : "";
  }
}

/**
 * The closure of the package installed at lock key `entry` (e.g. `node_modules/ai`) in the
 * project at `projectDir`: `{ bytes, packages: [{ name, version, bytes }] }`.
 */
export function dependencyClosure(projectDir, entry) {
  const lock = JSON.parse(readFileSync(join(projectDir, "package-lock.json"), "utf8"));
  const packages = lock.packages;
  const seen = new Map();
  const visit = (key) => {
    if (seen.has(key)) return;
    let meta = packages[key];
    let location = key;
    const workspace = meta.link === true;
    if (workspace) {
      location = meta.resolved;
      meta = packages[location];
    }
    const dir = join(projectDir, location);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    seen.set(key, {
      name: manifest.name,
      version: manifest.version,
      bytes: workspace ? packedBytes(dir) : dirBytes(dir),
    });
    const optionalPeers = meta.peerDependenciesMeta ?? {};
    const required = [
      ...Object.keys(meta.dependencies ?? {}),
      ...Object.keys(meta.peerDependencies ?? {}).filter((n) => optionalPeers[n]?.optional !== true),
    ];
    for (const name of required) {
      const dep = resolveKey(packages, location, name);
      if (dep === undefined) throw new Error(`${manifest.name}: dependency ${name} is not in the lockfile`);
      visit(dep);
    }
    for (const name of Object.keys(meta.optionalDependencies ?? {})) {
      const dep = resolveKey(packages, location, name);
      if (dep !== undefined && !packages[dep].optional) visit(dep);
      else if (dep !== undefined) {
        try {
          statSync(join(projectDir, dep));
          visit(dep);
        } catch {
          // an optional dependency not installed on this platform
        }
      }
    }
  };
  visit(entry);
  const list = [...seen.values()].sort((a, b) => b.bytes - a.bytes);
  return { bytes: list.reduce((sum, p) => sum + p.bytes, 0), packages: list };
}
