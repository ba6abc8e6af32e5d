// Hook functions of the library's own middleware whose effect on the request is known: they only
// READ it, or they never edit it in place (a change comes back as a new request). Keyed by the
// function itself, not by the middleware object: a copy of the middleware with another
// `beforeModel` (`{ ...budget, beforeModel: mine }`) is not trusted by mistake.
const readOnly = new WeakSet<object>();
const copyOnWrite = new WeakSet<object>();

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

/**
 * Marks a library middleware's `beforeModel` hook as one that never edits the request, its
 * messages or its tool list in place: it returns a new request when it changes something, and
 * nothing (or the same request) when it does not. The stack then snapshots the prompt prefix
 * only when the hook returned a new request (the input it was given is still intact), instead
 * of before and after every call. For the library's own hooks only.
 */
export function replacesRequestOnly<F extends (...args: never[]) => unknown>(hook: F): F {
  copyOnWrite.add(hook);
  return hook;
}

/** Whether `hook` was marked with {@link replacesRequestOnly}. */
export function isCopyOnWriteHook(hook: unknown): boolean {
  return typeof hook === "function" && copyOnWrite.has(hook);
}
