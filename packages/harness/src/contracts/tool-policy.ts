/**
 * What a tool does to the world, from harmless to dangerous: `none` (pure computation), `read`
 * (reads local or remote state), `write` (changes local state), `destructive` (deletes or
 * overwrites), `external` (acts outside the system: sends messages, moves money, calls APIs with
 * side effects).
 */
export type ToolSideEffect = "none" | "read" | "write" | "destructive" | "external";

/**
 * A tool's self-declared safety classification (serializable). `toolPolicyMiddleware` hides tools
 * whose policy the run cannot satisfy, rejects their calls, and truncates oversized results.
 */
export interface ToolPolicy {
  sideEffects?: ToolSideEffect;
  /** Every call needs a human's approval (see `humanApprovalMiddleware`). */
  requiresApproval?: boolean;
  /** The tool may only run inside a sandboxed workspace. */
  requiresSandbox?: boolean;
  /** Results larger than this many UTF-8 bytes are truncated before the model sees them. */
  maxResultBytes?: number;
}
