/**
 * The run inspector behind `tinyagents ui`, embeddable (exported from the `tinyagents` root):
 * serve it over any journal and status store, and let it act on the runs of this process through
 * `InspectorControls`.
 */
export type { InspectorStores } from "./inspector-data.js";
export { type InspectorOptions, type InspectorServer, serveInspector } from "./inspector-server.js";
export { InspectorControls, type RunAction, type RunControl } from "./run-controls.js";
export type * from "./view-types.js";
export type { RunDescription } from "./view-types.js";
