// Hook functions of the library's own middleware known to only READ the request they get.
// Keyed by the function itself, not by the middleware object: a copy of the middleware with
// another `beforeModel` (`{ ...budget, beforeModel: mine }`) is not trusted by mistake.
const readOnly = new WeakSet<object>();

/**
 * Marks a library middleware's `beforeModel` hook as one that neither replaces nor edits the
 * request (it checks, counts or throws, and returns nothing): the stack does not snapshot the
 * prompt prefix around it, since it cannot change it. Its return value is ignored. For the
 * library's own hooks only: every other hook is watched (`cache.layout_changed`,
 * `protectPromptPrefix`).
 */
export function readsRequestOnly<F extends (...args: never[]) => unknown>(hook: F): F {
  readOnly.add(hook);
  return hook;
}

/** Whether `hook` was marked with {@link readsRequestOnly}. */
export function isReadOnlyHook(hook: unknown): boolean {
  return typeof hook === "function" && readOnly.has(hook);
}
