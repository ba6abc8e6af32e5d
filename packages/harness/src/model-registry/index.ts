export {
  type ModelRegistration,
  ModelRegistry,
  type ModelSelection,
  type ResolvedModelBinding,
  type SkippedCandidate,
} from "./model-registry.js";
