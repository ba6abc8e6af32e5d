export { addTool } from "./demo/add-tool.js";
export { DemoModel } from "./demo/demo-model.js";
export { type DemoOutput, runDemo } from "./demo/run-demo.js";
