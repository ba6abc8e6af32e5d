export { MockModel, type MockModelOptions, type ScriptedMockOptions } from "./mock/index.js";
