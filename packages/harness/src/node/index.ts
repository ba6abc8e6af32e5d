/**
 * @tinyagents/harness/node — the parts of the harness that need a local filesystem (Node, Bun,
 * Deno): file-backed stores and journals, the JSONL event sink, and the workspace sandbox's
 * directory providers. The root entry `@tinyagents/harness` imports no `node:` module, so it
 * bundles for browsers and edge runtimes; import these from here.
 */
export { JsonlSink } from "../observability/jsonl-sink.js";
export { FileKeyValueStore, type FileKeyValueStoreOptions } from "../store/file-key-value-store.js";
export {
  DEFAULT_MAX_OPEN_FILES,
  JsonlAppendLog,
  type JsonlAppendLogOptions,
} from "../store/jsonl-append-log.js";
export { resolveRealPath } from "../workspace/resolve-real-path.js";
export { WorkspaceDescriptor, type WorkspaceDescriptorInit } from "../workspace/workspace-descriptor.js";
export {
  SharedRootWorkspace,
  TempDirWorkspace,
  type TempDirWorkspaceOptions,
} from "../workspace/workspace-providers.js";
