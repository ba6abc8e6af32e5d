/**
 * `@tinyagents/harness/artifacts`: artifacts a tool produces: the artifact store, its limits and
 * records. The root re-exports `ArtifactStore`, `ArtifactRef` and `artifactResult`.
 */
export { artifactResult } from "./artifact-result.js";
export {
  type Artifact,
  type ArtifactInput,
  type ArtifactLimits,
  type ArtifactRef,
  ArtifactStore,
  type ArtifactStoreOptions,
  DEFAULT_ARTIFACT_LIMITS,
} from "./artifact-store.js";
