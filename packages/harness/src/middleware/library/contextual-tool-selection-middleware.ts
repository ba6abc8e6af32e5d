import type { Middleware } from "../middleware.js";
import { callable, middlewareName, optionError, stringList } from "./option-checks.js";
import { PerRun } from "./per-run.js";
import { SavedState } from "./saved-state.js";
import { hideTools, toolCallRejected } from "./tool-filter.js";

/** What a tool-selection predicate sees for each tool, on each model call. */
export interface ToolSelectionContext<State = unknown> {
  toolName: string;
  runId: string;
  /** Sub-agent nesting depth of the run (0 at the top). */
  depth: number;
  tags: readonly string[];
  /** The model the request asks for (`request.model`), when it names one. */
  requestedModel?: string;
  state: State;
}

/** Decides per call whether the model may see and call a tool. */
export type ToolSelectionPredicate<State = unknown> = (ctx: ToolSelectionContext<State>) => boolean;

/** Allow and deny lists: a tool is selected when allowed (no `allow` = all) and not denied. */
export interface ToolSelectionLists {
  allow?: string[];
  deny?: string[];
}

/**
 * Per-call tool exposure: on every model call the predicate (or the lists) decides which tools the
 * model sees; the rest are hidden (`tools.filtered`). A call to a tool hidden from this run's last
 * request is rejected in `beforeTool` with `validation` (fails the run). Declares
 * `changes: "prefix"`. The tools hidden from the last request survive a pause (`saveState`): a
 * run paused in front of its tool calls checks them, on resume, against the request that produced
 * them rather than a fresh evaluation of the predicate (no `requestedModel`, changed state). See {@link inheritToolSelection} for a sub-agent that may only narrow its
 * parent's selection (also reachable as `contextualToolSelectionMiddleware.inheriting`).
 * Throws `validation` at construction for a predicate that is not a function or bad lists.
 */
export function contextualToolSelectionMiddleware<State = unknown, Ctx = unknown>(
  select: ToolSelectionPredicate<State> | ToolSelectionLists,
  options: { name?: string } = {},
): Middleware<State, Ctx> {
  const name = middlewareName("contextual_tool_selection", options.name);
  const predicate = toPredicate<State>(name, select);
  const hidden = new PerRun<{ tools: Set<string> | undefined }>(() => ({ tools: undefined }));

  return {
    name,
    changes: "prefix",
    beforeModel(ctx, request) {
      const base = {
        runId: ctx.run.runId,
        depth: ctx.run.depth,
        tags: ctx.run.config.tags,
        state: ctx.state,
        ...(request.model === undefined ? {} : { requestedModel: request.model }),
      };
      const excluded = new Set<string>();
      const next = hideTools(ctx, request, name, (toolName) => {
        const keep = predicate({ ...base, toolName });
        if (!keep) excluded.add(toolName);
        return keep;
      });
      hidden.of(ctx.run).tools = excluded;
      return next;
    },
    beforeTool(ctx, call) {
      const excluded = hidden.of(ctx.run).tools;
      const denied =
        excluded !== undefined
          ? excluded.has(call.name)
          : !predicate({
              toolName: call.name,
              runId: ctx.run.runId,
              depth: ctx.run.depth,
              tags: ctx.run.config.tags,
              state: ctx.state,
            });
      if (denied) throw toolCallRejected(name, call, "the tool is not selected for this call");
    },
    saveState(ctx) {
      const excluded = hidden.of(ctx.run).tools;
      return excluded === undefined ? undefined : { hidden: [...excluded] };
    },
    restoreState(ctx, saved) {
      hidden.of(ctx.run).tools = new Set(new SavedState(name, saved).strings("hidden"));
    },
  };
}

/**
 * A selection for a child (sub-agent) that can only narrow its parent's: allowed = parent allow
 * ∩ child allow (an absent list allows everything), denied = parent deny ∪ child deny.
 */
export function inheritToolSelection(
  parentAllow: string[] | undefined,
  parentDeny: string[],
  childAllow: string[] | undefined,
  childDeny: string[],
): Required<Pick<ToolSelectionLists, "deny">> & ToolSelectionLists {
  const deny = [...new Set([...parentDeny, ...childDeny])];
  if (parentAllow === undefined && childAllow === undefined) return { deny };
  if (parentAllow === undefined) return { allow: [...new Set(childAllow)], deny };
  if (childAllow === undefined) return { allow: [...new Set(parentAllow)], deny };
  const child = new Set(childAllow);
  return { allow: [...new Set(parentAllow)].filter((tool) => child.has(tool)), deny };
}

/** {@link contextualToolSelectionMiddleware} over {@link inheritToolSelection}'s lists. */
contextualToolSelectionMiddleware.inheriting = <State = unknown, Ctx = unknown>(
  parentAllow: string[] | undefined,
  parentDeny: string[],
  childAllow: string[] | undefined,
  childDeny: string[],
  options: { name?: string } = {},
): Middleware<State, Ctx> =>
  contextualToolSelectionMiddleware<State, Ctx>(
    inheritToolSelection(parentAllow, parentDeny, childAllow, childDeny),
    options,
  );

function toPredicate<State>(
  name: string,
  select: ToolSelectionPredicate<State> | ToolSelectionLists,
): ToolSelectionPredicate<State> {
  if (typeof select === "function") return select;
  if (typeof select !== "object" || select === null) {
    return callable(name, "select", select as unknown as ToolSelectionPredicate<State>);
  }
  const allow = select.allow === undefined ? undefined : new Set(stringList(name, "allow", select.allow));
  const deny = new Set(select.deny === undefined ? [] : stringList(name, "deny", select.deny));
  if (allow === undefined && deny.size === 0) {
    throw optionError(name, "allow", "or `deny` is required (or pass a predicate function)");
  }
  return ({ toolName }) => (allow === undefined || allow.has(toolName)) && !deny.has(toolName);
}
