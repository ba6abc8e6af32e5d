import { type JsonObject, type JsonValue, TinyAgentsError, validationError } from "@tinyagents/inference";
import type { RunContext } from "../contracts/run-context.js";
import { base64ToBytes, bytesToBase64 } from "../encoding/base64.js";
import { utf8ByteLength } from "../encoding/utf8.js";
import { InMemoryKeyValueStore, type KeyValueStore } from "../store/key-value-store.js";

/** What a tool hands to {@link ArtifactStore.put}. */
export interface ArtifactInput {
  /** A file-like name (`report.csv`); shown to the model in the reference. */
  name: string;
  /** Text, or bytes (stored base64). */
  content: string | Uint8Array;
  /** Default `text/plain` for strings, `application/octet-stream` for bytes. */
  mimeType?: string;
  metadata?: JsonObject;
}

/** The short reference that stands in for an artifact in the transcript. Plain JSON data. */
export interface ArtifactRef {
  id: string;
  name: string;
  mimeType: string;
  /** Size of the content in bytes. */
  bytes: number;
  /** `artifact://{id}` */
  uri: string;
  createdAt: number;
  /** The run that stored it, when stored from a run. */
  runId?: string;
  metadata?: JsonObject;
}

/** A stored artifact with its content. */
export interface Artifact extends ArtifactRef {
  content: string | Uint8Array;
}

/** Size limits of an {@link ArtifactStore}. */
export interface ArtifactLimits {
  /** Largest single artifact, in bytes (default 10 MiB). */
  maxArtifactBytes: number;
  /** Most bytes this store instance accepts in total (default 100 MiB). */
  maxTotalBytes: number;
}

/** Default artifact limits. */
export const DEFAULT_ARTIFACT_LIMITS: ArtifactLimits = {
  maxArtifactBytes: 10 * 1024 * 1024,
  maxTotalBytes: 100 * 1024 * 1024,
};

/** Options of an {@link ArtifactStore}. */
export interface ArtifactStoreOptions {
  /** Where artifacts live (default in memory); any durable KeyValueStore works. */
  store?: KeyValueStore;
  /** Default `"artifacts"`. */
  namespace?: string;
  limits?: Partial<ArtifactLimits>;
  /** Clock for `createdAt` when no run is given (default `Date.now`). */
  now?: () => number;
}

interface StoredArtifact extends ArtifactRef {
  encoding: "utf8" | "base64";
  data: string;
}

/**
 * Keeps tool-produced artifacts (files, large outputs) OUTSIDE the transcript: a tool stores
 * the content and returns `artifactResult(ref)`, a short reference; the loop tracks the id on
 * `run.artifacts`. Size limits fail closed with `limit_exceeded` saying which limit and how to
 * raise it; `maxTotalBytes` counts what this instance stored.
 */
export class ArtifactStore {
  readonly limits: ArtifactLimits;
  private readonly store: KeyValueStore;
  private readonly namespace: string;
  private readonly now: () => number;
  private total = 0;
  private fallbackSeq = 0;

  constructor(options: ArtifactStoreOptions = {}) {
    this.store = options.store ?? new InMemoryKeyValueStore();
    this.namespace = options.namespace ?? "artifacts";
    this.limits = { ...DEFAULT_ARTIFACT_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
  }

  /** Bytes stored through this instance. */
  get totalBytes(): number {
    return this.total;
  }

  /**
   * Store an artifact and return its reference. With `run`, the id comes from the run's ids
   * (`artifact-…`), `createdAt` from its clock, and an `artifact.stored` event is emitted.
   */
  async put(input: ArtifactInput, run?: RunContext<unknown>): Promise<ArtifactRef> {
    if (typeof input?.name !== "string" || input.name.trim() === "") {
      throw validationError("an artifact needs a non-empty `name`", { field: "name" });
    }
    const isText = typeof input.content === "string";
    if (!isText && !(input.content instanceof Uint8Array)) {
      throw validationError(`artifact "${input.name}": content must be a string or a Uint8Array`, {
        field: "content",
      });
    }
    const bytes = isText ? utf8ByteLength(input.content as string) : (input.content as Uint8Array).byteLength;
    this.checkLimits(input.name, bytes);
    const id =
      run?.ids.next("artifact") ?? `artifact-${(++this.fallbackSeq).toString(36)}-${this.now().toString(36)}`;
    const ref: ArtifactRef = {
      id,
      name: input.name,
      mimeType: input.mimeType ?? (isText ? "text/plain" : "application/octet-stream"),
      bytes,
      uri: `artifact://${id}`,
      createdAt: run?.clock.now() ?? this.now(),
    };
    if (run !== undefined) ref.runId = run.runId;
    if (input.metadata !== undefined) ref.metadata = structuredClone(input.metadata);
    const stored: StoredArtifact = {
      ...ref,
      encoding: isText ? "utf8" : "base64",
      data: isText ? (input.content as string) : bytesToBase64(input.content as Uint8Array),
    };
    await this.store.put(this.namespace, id, stored as unknown as JsonValue);
    this.total += bytes;
    run?.emit({ type: "artifact.stored", artifactId: id, name: ref.name, bytes });
    return ref;
  }

  /** The artifact with its content, or `undefined`. */
  async get(id: string): Promise<Artifact | undefined> {
    const stored = (await this.store.get(this.namespace, id)) as unknown as StoredArtifact | undefined;
    if (stored === undefined) return undefined;
    const { encoding, data, ...ref } = stored;
    return { ...ref, content: encoding === "utf8" ? data : base64ToBytes(data) };
  }

  /** Like `get`, but a missing artifact is a `validation` error naming the id. */
  async require(id: string): Promise<Artifact> {
    const artifact = await this.get(id);
    if (artifact === undefined) {
      throw validationError(
        `no artifact "${id}" in this store; use an id from run.artifacts or an ArtifactRef`,
        {
          field: "id",
        },
      );
    }
    return artifact;
  }

  /** Every stored artifact id, sorted. */
  list(): Promise<string[]> {
    return this.store.list(this.namespace);
  }

  private checkLimits(name: string, bytes: number): void {
    const { maxArtifactBytes, maxTotalBytes } = this.limits;
    if (bytes > maxArtifactBytes) {
      throw new TinyAgentsError(
        "limit_exceeded",
        `artifact "${name}" is ${bytes} bytes, over the per-artifact limit of ${maxArtifactBytes} bytes; ` +
          "store a smaller slice, or raise ArtifactLimits.maxArtifactBytes",
        { details: { limit: "artifact_bytes", value: maxArtifactBytes, count: bytes } },
      );
    }
    if (this.total + bytes > maxTotalBytes) {
      throw new TinyAgentsError(
        "limit_exceeded",
        `artifact "${name}" (${bytes} bytes) would bring this store to ${this.total + bytes} bytes, over its ` +
          `limit of ${maxTotalBytes} bytes; clean up old artifacts, or raise ArtifactLimits.maxTotalBytes`,
        { details: { limit: "artifact_total_bytes", value: maxTotalBytes, count: this.total + bytes } },
      );
    }
  }
}
