import { registeredSecrets } from "@tinyagents/inference";
import type { AgentObservation } from "./agent-observation.js";
import { isEssentialForJournal, type JournalEvents } from "./journal-events.js";
import type { Redactor } from "./redaction.js";
import { SinkIdVerdict } from "./sink-id-verdict.js";

/**
 * Whether the standard projections ignore the payload of `type`: the status projection only
 * notes the record's id and offset (and, for `middleware.started`, the phase), the usage and
 * timing projections skip it. True for the bookkeeping events the essential journal leaves out.
 */
function payloadUnread(type: AgentObservation["event"]["type"]): boolean {
  switch (type) {
    case "middleware.started":
    case "middleware.completed":
    case "budget.reserved":
    case "budget.reconciled":
    case "state.updated":
    case "route.selected":
      return true;
    default:
      return false;
  }
}

/**
 * The short cut of an `attachObservability` pipeline for its bookkeeping events: when the
 * pipeline has no extra sinks and its journal (if any) does not store an observation, only the
 * projections read it, and they read nothing of its payload. Such an observation goes straight
 * to the projections, without the redaction walk and the fan-out: it reaches no journal, store
 * field or exporter in either way, and the projections apply it in the same order. Each hook of
 * each middleware emits two of them per call (`middleware.started` / `middleware.completed`).
 *
 * Returns `undefined` when the pipeline cannot take it (extra sinks, or a journal storing every
 * event). An observation whose envelope strings the redactor would change (a run id shaped like
 * a secret) or that carries a graph node (copied into a new status record) takes the full path.
 * `idPrefix` is the `${streamId}-evt-` of the event sink the pipeline observes: its record ids'
 * verdict is taken per prefix and digit count (`SinkIdVerdict`), not by scanning each new id.
 */
export function projectionOnlyFilter(options: {
  sinks: number;
  journal: JournalEvents | undefined;
  redactor: Redactor | undefined;
  idPrefix: string;
}): ((observation: AgentObservation) => boolean) | undefined {
  if (options.sinks > 0 || options.journal === "all") return undefined;
  const envelope =
    options.redactor === undefined ? undefined : new CleanEnvelope(options.redactor, options.idPrefix);
  return (o) =>
    payloadUnread(o.event.type) &&
    !isEssentialForJournal(o) &&
    o.graphNode === undefined &&
    (envelope === undefined || envelope.isClean(o));
}

/**
 * Whether redaction leaves an observation's envelope strings (id, run ids) unchanged, remembering
 * the run ids last found clean and the sink's id verdict while the registered credentials stay
 * the same (`redactString` is a pure function of the string, the redactor and that list).
 */
class CleanEnvelope {
  private readonly redactor: Redactor;
  private readonly idPrefix: string;
  private readonly ids: SinkIdVerdict;
  private under: readonly string[] | undefined;
  private cleanRun: string | undefined;
  private cleanRoot: string | undefined;

  constructor(redactor: Redactor, idPrefix: string) {
    this.redactor = redactor;
    this.idPrefix = idPrefix;
    this.ids = new SinkIdVerdict(redactor);
  }

  isClean(o: AgentObservation): boolean {
    const secrets = registeredSecrets();
    if (secrets !== this.under) {
      this.under = secrets;
      this.cleanRun = this.cleanRoot = undefined;
      this.ids.forget();
    }
    const { id, runId, rootRunId, parentRunId } = o;
    if (!this.ids.isClean(o.offset, id.length, this.idPrefix, secrets) && !this.clean(id)) return false;
    if (runId !== this.cleanRun) {
      if (!this.clean(runId)) return false;
      this.cleanRun = runId;
    }
    if (rootRunId !== this.cleanRoot) {
      if (!this.clean(rootRunId)) return false;
      this.cleanRoot = rootRunId;
    }
    return parentRunId === undefined || this.clean(parentRunId);
  }

  private clean(text: string): boolean {
    return this.redactor.redactString(text) === text;
  }
}
