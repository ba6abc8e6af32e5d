// The inspector's web app (packages/cli/ui-app): one minified ES module and one stylesheet for
// the browser, plus index.html, written to `outDir` (the build puts them in dist/inspector; tests
// build into a temp dir). Everything the page loads is in these three files: no CDN, works offline.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";

/** Build the app in `appDir` (holding src/main.ts, app.css, index.html) into `outDir`. */
export async function buildWebApp(appDirIn, outDir) {
  const appDir = resolve(appDirIn);
  mkdirSync(outDir, { recursive: true });
  await build({
    absWorkingDir: appDir,
    entryPoints: { app: "src/main.ts", "app-css": "app.css" },
    outdir: outDir,
    entryNames: "[name]",
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: ["es2022", "chrome110", "firefox110", "safari16"],
    tsconfig: join(appDir, "tsconfig.json"),
    sourcemap: false,
    legalComments: "none",
    logLevel: "warning",
  });
  // esbuild names a CSS entry by its key: rename app-css.css -> app.css.
  copyFileSync(join(outDir, "app-css.css"), join(outDir, "app.css"));
  rmSync(join(outDir, "app-css.css"), { force: true });
  copyFileSync(join(appDir, "index.html"), join(outDir, "index.html"));
}
