import {
  type JsonObject,
  type JsonValue,
  TinyAgentsError,
  type UserMessage,
  user,
  validationError,
} from "@tinyagents/inference";
import { type AgentRun, runText } from "../agent-loop/agent-run.js";
import type { KeyValueStore } from "../store/key-value-store.js";

/**
 * What one run passes to the next (another agent, a later session, a human): a summary, the
 * artifacts it produced, and what is still open. Plain JSON data.
 */
export interface HandoffRecord {
  id: string;
  fromRunId: string;
  threadId?: string;
  summary: string;
  /** Artifact ids (see `ArtifactStore`). */
  artifacts: string[];
  openQuestions: string[];
  createdAt: number;
  metadata: JsonObject;
}

/** Fields of {@link createHandoff}; everything is optional. */
export interface HandoffFields {
  /** Default: the run's final answer text. */
  summary?: string;
  openQuestions?: string[];
  metadata?: JsonObject;
  /** Default: `handoff-{runId}`. */
  id?: string;
  /** Default: `Date.now()`. */
  createdAt?: number;
}

/** Build the handoff record of a finished run (its artifacts come from `run.artifacts`). */
export function createHandoff(run: AgentRun, fields: HandoffFields = {}): HandoffRecord {
  const summary = fields.summary ?? runText(run);
  if (summary.trim() === "") {
    throw validationError(`run "${run.runId}" has no final answer to hand off; pass \`summary\` explicitly`, {
      field: "summary",
    });
  }
  const record: HandoffRecord = {
    id: fields.id ?? `handoff-${run.runId}`,
    fromRunId: run.runId,
    summary,
    artifacts: [...(run.artifacts ?? [])],
    openQuestions: [...(fields.openQuestions ?? [])],
    createdAt: fields.createdAt ?? Date.now(),
    metadata: structuredClone(fields.metadata ?? {}),
  };
  if (run.threadId !== undefined) record.threadId = run.threadId;
  return record;
}

/** The handoff as a user message to start the next run with. */
export function handoffMessage(record: HandoffRecord): UserMessage {
  const lines = [`[handoff from run ${record.fromRunId}]`, `Summary: ${record.summary}`];
  if (record.artifacts.length > 0) lines.push(`Artifacts: ${record.artifacts.join(", ")}`);
  if (record.openQuestions.length > 0) {
    lines.push("Open questions:", ...record.openQuestions.map((q) => `- ${q}`));
  }
  return user(lines.join("\n"));
}

/** Handoff records in any {@link KeyValueStore}, by id. */
export class HandoffStore {
  readonly store: KeyValueStore;
  readonly namespace: string;

  constructor(store: KeyValueStore, namespace = "handoffs") {
    this.store = store;
    this.namespace = namespace;
  }

  async save(record: HandoffRecord): Promise<void> {
    await this.store.put(this.namespace, record.id, JSON.parse(JSON.stringify(record)) as JsonValue);
  }

  async load(id: string): Promise<HandoffRecord | undefined> {
    const value = await this.store.get(this.namespace, id);
    if (value === undefined) return undefined;
    const record = value as unknown as HandoffRecord;
    if (typeof record?.summary !== "string" || !Array.isArray(record.artifacts)) {
      throw new TinyAgentsError("serialization", `stored handoff "${id}" is not a HandoffRecord`, {
        details: { id, namespace: this.namespace },
      });
    }
    return record;
  }

  list(): Promise<string[]> {
    return this.store.list(this.namespace);
  }
}
