export {
  type CreateModelOptions,
  createModel,
  fromEnv,
  inferProvider,
  KNOWN_PROVIDERS,
} from "./create-model.js";
export { MockModel, type MockModelOptions, type ScriptedMockOptions } from "./mock/index.js";
