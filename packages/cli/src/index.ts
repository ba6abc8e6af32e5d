/**
 * tinyagents — the command line. `main(argv, io)` runs it in-process (tests, embedding); the
 * pieces below are exported for reuse.
 */

export {
  DEMO_INSTRUCTIONS,
  type DemoAgentOptions,
  type DemoOptions,
  type DemoOutput,
  demoAgent,
  runDemo,
} from "./commands/run-demo.js";
export { type CliAgentFlags, cliAgent } from "./core/cli-agent.js";
export { type CliIo, type CliOutput, processIo } from "./core/cli-io.js";
export { EXIT, type ExitCode } from "./core/exit-codes.js";
// Record and replay (issue 38): what `tinyagents test export` writes and the inspector offers.
export { type CliRunExportOptions, exportCliRunAsTest } from "./core/export-cli-run.js";
export { resolveDbPath } from "./core/paths.js";
export { type SelectedModel, selectModel } from "./core/select-model.js";
export { addTool } from "./demo/add-tool.js";
export { DemoModel, type DemoModelOptions } from "./demo/demo-model.js";
export { main } from "./main.js";
export { renderTimeline } from "./render/timeline.js";
// The run inspector behind `tinyagents ui` (docs/ui.md). Commands import it lazily, so the CLI's
// startup does not load it; this root entry (for embedding) does.
export * from "./ui/index.js";
