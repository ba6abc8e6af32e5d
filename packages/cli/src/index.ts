/**
 * tinyagents — the command line. `main(argv, io)` runs it in-process (tests, embedding); the
 * pieces below are exported for reuse.
 */

export { type CliAgentFlags, cliAgent } from "./cli-agent.js";
export { type CliIo, type CliOutput, processIo } from "./cli-io.js";
export { addTool } from "./demo/add-tool.js";
export { DemoModel, type DemoModelOptions } from "./demo/demo-model.js";
export {
  DEMO_INSTRUCTIONS,
  type DemoAgentOptions,
  type DemoOptions,
  type DemoOutput,
  demoAgent,
  runDemo,
} from "./demo/run-demo.js";
export { EXIT, type ExitCode } from "./exit-codes.js";
// Record and replay (issue 38): what `tinyagents test export` writes and the inspector offers.
export { type CliRunExportOptions, exportCliRunAsTest } from "./export-cli-run.js";
export { main } from "./main.js";
export { resolveDbPath } from "./paths.js";
export { renderTimeline } from "./render/timeline.js";
export { type SelectedModel, selectModel } from "./select-model.js";
// The run inspector behind `tinyagents ui` (docs/ui.md). Commands import it lazily, so the CLI's
// startup does not load it; this root entry (for embedding) does.
export * from "./ui/index.js";
