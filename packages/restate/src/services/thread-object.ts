import { type ObjectContext, object, type Serde, serde } from "@restatedev/restate-sdk";
import { isJsonObject } from "@tinyagents/inference";
import { agentWorkflowName, threadObjectName } from "../naming/naming.js";
import { handlerError } from "./handler-errors.js";
import type { RestateRunOutcome, RestateRunRequest, ThreadSubmission } from "./run-protocol.js";

/**
 * One conversation, one run at a time, in order: a Restate Virtual Object keyed by thread id (the
 * distributed form of the harness's `RunQueue`). Its exclusive `submit` handler invokes the run's
 * agent workflow and waits for it to finish, so Restate queues the thread's next submission
 * behind it — in the order submissions arrived, across every client and worker — while other
 * threads run in parallel. A run waiting days for an approval holds its thread for those days.
 *
 * Submit with the run id as idempotency key (the client does): a retried submission does not
 * queue the run twice.
 */
export function threadObject(agents: ReadonlySet<string>, prefix?: string) {
  return object({
    name: threadObjectName(prefix),
    handlers: {
      submit: async (ctx: ObjectContext, body: ThreadSubmission): Promise<RestateRunOutcome> => {
        if (
          !isJsonObject(body) ||
          typeof body.agent !== "string" ||
          typeof body.runId !== "string" ||
          body.runId === ""
        ) {
          throw handlerError("validation", "a thread submission needs { agent, runId, input }");
        }
        if (!agents.has(body.agent)) {
          throw handlerError(
            "not_found",
            `unknown agent "${body.agent}"; this deployment serves ${[...agents].join(", ")}`,
          );
        }
        const { agent, runId, ...rest } = body;
        const request: RestateRunRequest = { ...rest, threadId: ctx.key };
        return ctx.genericCall<RestateRunRequest, RestateRunOutcome>({
          service: agentWorkflowName(agent, prefix),
          method: "run",
          key: runId,
          parameter: request,
          inputSerde: serde.json as Serde<RestateRunRequest>,
          outputSerde: serde.json as Serde<RestateRunOutcome>,
          name: `run ${runId}`,
        });
      },
    },
  });
}
