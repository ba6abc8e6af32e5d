import type { ModelRequest } from "@tinyagents/inference";
import { bracket, callHook, completed, isThenable } from "./hook-brackets.js";
import { failed, prefixViolation } from "./hook-errors.js";
import type { HookContext, Middleware } from "./middleware.js";
import { type PrefixLayout, prefixChange, prefixLayout } from "./prefix-fingerprint.js";
import { isCopyOnWriteHook, isReadOnlyHook } from "./read-only-hooks.js";

// The `beforeModel` chain of a middleware stack (`MiddlewareStack.beforeModel`): each hook may
// replace the request, and the request's cacheable prompt prefix is watched across the chain.

/** State of the prefix watch across one run of the `beforeModel` chain. */
interface PrefixWatch {
  /** The prefix before the next watched hook; `undefined` until a hook that may change it runs. */
  layout: PrefixLayout | undefined;
  changed: boolean;
  readonly protectPrefix: boolean;
}

/**
 * Run the `beforeModel` hooks of `chain` (in registration order) on `request`, watching its
 * cacheable prefix: when a hook changes it, `cache.layout_changed` names the middleware; with
 * `protectPrefix` a middleware that did not declare `changes: "prefix"` fails (`validation`,
 * reported as its `middleware.failed`). The final request comes back without a promise when
 * every hook answers synchronously. The prefix is snapshotted lazily, before the first hook that
 * may change it: a chain of read-only hooks (see `readsRequestOnly`) costs no snapshot at all, and
 * a copy-on-write hook (see `replacesRequestOnly`) one only when it returned a new request.
 */
export function runBeforeModelChain<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  chain: Middleware<State, Ctx>[],
  request: ModelRequest,
  protectPrefix: boolean,
): ModelRequest | Promise<ModelRequest> {
  return beforeModelFrom(ctx, chain, 0, request, protectPrefix, undefined);
}

/** The chain from position `start` on, synchronously until a hook returns a promise. */
function beforeModelFrom<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  chain: Middleware<State, Ctx>[],
  start: number,
  request: ModelRequest,
  protectPrefix: boolean,
  watching: PrefixWatch | undefined,
): ModelRequest | Promise<ModelRequest> {
  let current = request;
  let watch = watching;
  for (let i = start; i < chain.length; i++) {
    const m = chain[i] as Middleware<State, Ctx>;
    const input = current;
    if (isReadOnlyHook(m.beforeModel)) {
      const checked = callHook<State, Ctx, unknown>(ctx, m, "beforeModel", input);
      if (checked instanceof Promise) {
        return checked.then(() => beforeModelFrom(ctx, chain, i + 1, input, protectPrefix, watch));
      }
      continue;
    }
    if (isCopyOnWriteHook(m.beforeModel)) {
      // It leaves its input intact: the prefix needs a snapshot (and the watch its state) only
      // if it returned a new request. Bracketed as `callHook` brackets, without a closure.
      ctx.run.emit({ type: "middleware.started", name: m.name, hook: "beforeModel" });
      let replaced: ModelRequest | undefined | void | Promise<ModelRequest | undefined | void>;
      try {
        replaced = m.beforeModel?.(ctx, input);
      } catch (thrown) {
        return Promise.reject(failed(ctx, m.name, "beforeModel", thrown));
      }
      if (replaced === undefined || replaced === null || replaced === input) {
        ctx.run.emit({ type: "middleware.completed", name: m.name, hook: "beforeModel" });
        continue;
      }
      watch ??= { layout: undefined, changed: false, protectPrefix };
      const watched = watch;
      let checked: ModelRequest | Promise<ModelRequest>;
      try {
        checked = isThenable(replaced)
          ? Promise.resolve(replaced).then((out) => checkReplacement(ctx, m, input, out, watched))
          : checkReplacement(ctx, m, input, replaced, watched);
      } catch (thrown) {
        return Promise.reject(failed(ctx, m.name, "beforeModel", thrown));
      }
      const next = completed(ctx, m, "beforeModel", checked);
      if (next instanceof Promise) {
        return next.then((prepared) => beforeModelFrom(ctx, chain, i + 1, prepared, protectPrefix, watched));
      }
      current = next;
      continue;
    }
    // Only a hook that may change the request needs the watch's state (read-only chains: none).
    watch ??= { layout: undefined, changed: false, protectPrefix };
    const watched = watch;
    watched.layout ??= prefixLayout(input);
    const next = bracket(ctx, m, "beforeModel", () => {
      const replaced = m.beforeModel?.(ctx, input);
      return isThenable(replaced)
        ? Promise.resolve(replaced).then((out) => checkPrefix(ctx, m, out ?? input, watched))
        : checkPrefix(ctx, m, replaced ?? input, watched);
    });
    if (next instanceof Promise) {
      return next.then((prepared) => beforeModelFrom(ctx, chain, i + 1, prepared, protectPrefix, watched));
    }
    current = next;
  }
  // The prefix changed: the request's fingerprint must describe what is actually sent.
  if (watch?.changed && watch.layout !== undefined && Object.hasOwn(current, "promptFingerprint"))
    current.promptFingerprint = watch.layout.fingerprint;
  return current;
}

/** After a copy-on-write `beforeModel` hook (see `replacesRequestOnly`): `checkPrefix` if it replaced the request. */
function checkReplacement<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  m: Middleware<State, Ctx>,
  input: ModelRequest,
  out: ModelRequest | undefined | void,
  watch: PrefixWatch,
): ModelRequest {
  if (out === undefined || out === null || out === input) return input;
  watch.layout ??= prefixLayout(input);
  return checkPrefix(ctx, m, out, watch);
}

/** After one `beforeModel` hook: report (or, protected, refuse) a change of the prefix. */
function checkPrefix<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  m: Middleware<State, Ctx>,
  next: ModelRequest,
  watch: PrefixWatch,
): ModelRequest {
  const after = prefixLayout(next);
  const change = prefixChange(watch.layout ?? after, after);
  watch.layout = after;
  if (change !== undefined) {
    watch.changed = true;
    ctx.run.emit({ type: "cache.layout_changed", middleware: m.name, ...change });
    if (watch.protectPrefix && m.changes !== "prefix") throw prefixViolation(m, change.segment);
  }
  return next;
}
