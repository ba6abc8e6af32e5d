export { claimConflict, journalWriterConflict } from "./durability-errors.js";
export { continueEventSink, journalNextOffset } from "./journal-continuity.js";
