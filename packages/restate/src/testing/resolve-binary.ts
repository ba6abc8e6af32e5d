import { accessSync, constants } from "node:fs";
import { createRequire } from "node:module";
import { arch, platform } from "node:os";
import { TinyAgentsError } from "@tinyagents/inference";

const SERVER_PACKAGE = "@restatedev/restate-server";

/**
 * The path of the `restate-server` binary installed in node_modules, found the way the npm
 * package's own launcher finds it: `@restatedev/restate-server` depends (optionally) on one
 * platform package per OS/CPU, `@restatedev/restate-server-<platform>-<arch>`, which holds
 * `bin/restate-server`. Resolved from `@restatedev/restate-server` itself, so it works wherever
 * npm placed (hoisted or nested) the platform package. Throws a `validation` TinyAgentsError that
 * says what to install when the package, the platform package or the binary is missing.
 */
export function resolveRestateServerBinary(from: string = moduleUrl()): string {
  const require = createRequire(from);
  let serverManifest: string;
  try {
    serverManifest = require.resolve(`${SERVER_PACKAGE}/package.json`);
  } catch (cause) {
    throw new TinyAgentsError(
      "validation",
      `restate-server binary not found: the npm package ${SERVER_PACKAGE} is not installed. ` +
        `Install it next to @tinyagents/restate: npm install -D ${SERVER_PACKAGE}@~1.7.12`,
      { cause, details: { package: SERVER_PACKAGE, reason: "package_missing" } },
    );
  }
  const platformPackage = `${SERVER_PACKAGE}-${platform()}-${arch()}`;
  let binary: string;
  try {
    binary = createRequire(serverManifest).resolve(`${platformPackage}/bin/restate-server`);
  } catch (cause) {
    throw new TinyAgentsError(
      "validation",
      `restate-server binary not found: ${platformPackage} (the optional dependency of ${SERVER_PACKAGE} ` +
        `for ${platform()}-${arch()}) is not installed. Reinstall with optional dependencies ` +
        "(npm install --include=optional), or run on a platform Restate ships (linux/darwin, x64/arm64).",
      { cause, details: { package: platformPackage, reason: "platform_package_missing" } },
    );
  }
  try {
    accessSync(binary, constants.X_OK);
  } catch (cause) {
    throw new TinyAgentsError(
      "validation",
      `restate-server binary at ${binary} is not executable; reinstall ${platformPackage} (npm ci).`,
      { cause, details: { binary, reason: "not_executable" } },
    );
  }
  return binary;
}

function moduleUrl(): string {
  // CommonJS builds have __filename; ES modules have import.meta.url.
  return typeof __filename === "string" ? __filename : import.meta.url;
}
