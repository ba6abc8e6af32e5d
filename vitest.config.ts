import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@tinyagents\/inference$/, replacement: src("./packages/inference/src/index.ts") },
      {
        find: /^@tinyagents\/inference\/ai-sdk$/,
        replacement: src("./packages/inference/src/ai-sdk/index.ts"),
      },
      {
        find: /^@tinyagents\/harness\/testkit$/,
        replacement: src("./packages/harness/src/testkit/index.ts"),
      },
      { find: /^@tinyagents\/harness\/otel$/, replacement: src("./packages/harness/src/otel/index.ts") },
      {
        find: /^@tinyagents\/harness\/langfuse$/,
        replacement: src("./packages/harness/src/langfuse/index.ts"),
      },
      { find: /^@tinyagents\/harness\/sqlite$/, replacement: src("./packages/harness/src/sqlite/index.ts") },
      { find: /^@tinyagents\/harness\/node$/, replacement: src("./packages/harness/src/node/index.ts") },
      { find: /^@tinyagents\/harness\/tools$/, replacement: src("./packages/harness/src/tools/index.ts") },
      { find: /^@tinyagents\/harness\/mcp$/, replacement: src("./packages/harness/src/mcp/index.ts") },
      { find: /^@tinyagents\/harness\/evals$/, replacement: src("./packages/harness/src/evals/index.ts") },
      {
        find: /^@tinyagents\/harness\/langgraph$/,
        replacement: src("./packages/harness/src/langgraph/index.ts"),
      },
      { find: /^@tinyagents\/dbos$/, replacement: src("./packages/dbos/src/index.ts") },
      { find: /^@tinyagents\/harness$/, replacement: src("./packages/harness/src/index.ts") },
      { find: /^@tinyagents\/restate$/, replacement: src("./packages/restate/src/index.ts") },
      {
        find: /^@tinyagents\/restate\/testing$/,
        replacement: src("./packages/restate/src/testing/index.ts"),
      },
      { find: /^@tinyagents\/postgres$/, replacement: src("./packages/postgres/src/index.ts") },
      {
        find: /^@tinyagents\/postgres\/testing$/,
        replacement: src("./packages/postgres/src/testing/index.ts"),
      },
    ],
  },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "examples/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    typecheck: {
      enabled: true,
      include: ["packages/*/src/**/*.test-d.ts", "packages/*/test/**/*.test-d.ts"],
      tsconfig: "./tsconfig.json",
    },
    testTimeout: 20000,
    // Fixed fast-check seed; then: each test file must leave no handle, timer or socket behind.
    setupFiles: ["./test/setup/fast-check.ts", "./test/setup/resource-hygiene.ts"],
  },
});
