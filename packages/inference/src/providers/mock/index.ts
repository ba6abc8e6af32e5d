export { MockModel, type MockModelOptions, type ScriptedMockOptions } from "./mock-model.js";
