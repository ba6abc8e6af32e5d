import {
  type CapabilitySet,
  type ChatModel,
  type ModelHint,
  type ModelResolutionSource,
  type ResolvedModel,
  TinyAgentsError,
  unmetCapabilities,
} from "@tinyagents/inference";
import type { ModelPricing } from "../cost/cost.js";

/** A registered model with its optional pricing. */
export interface ModelRegistration<State = unknown> {
  name: string;
  model: ChatModel<State>;
  pricing?: ModelPricing;
  /**
   * @internal The built-in catalog's price for this model, looked up once on first use (`null`:
   * the catalog does not know it). Only consulted when `pricing` is not set.
   */
  catalogPricing?: ModelPricing | null;
}

const NOTHING_SKIPPED: SkippedCandidate[] = [];
Object.freeze(NOTHING_SKIPPED);

/** What the caller asks for; resolution walks these in precedence order. */
export interface ModelSelection {
  /** Explicit per-request model name (highest precedence). */
  override?: string | undefined;
  /** The model that served the previous call, reused when `reusePrevious` is set. */
  previous?: string | undefined;
  reusePrevious?: boolean | undefined;
  hints?: ModelHint[] | undefined;
  /** The agent's default, when it differs from the registry's. */
  agentDefault?: string | undefined;
  required?: CapabilitySet | undefined;
}

/** A model that was considered and passed over, with why. */
export interface SkippedCandidate {
  name: string;
  source: ModelResolutionSource;
  reason: string;
}

/** The outcome of resolution: the model to call and the durable record of the choice. */
export interface ResolvedModelBinding<State = unknown> {
  registration: ModelRegistration<State>;
  resolved: ResolvedModel;
  skipped: SkippedCandidate[];
}

/**
 * Named models. The first registered becomes the registry default. `resolve` applies the
 * precedence: request override > previous model (when reuse is allowed) > hints by priority >
 * agent default > registry default, skipping candidates that fail required capabilities.
 */
export class ModelRegistry<State = unknown> {
  private readonly models = new Map<string, ModelRegistration<State>>();
  private defaultName: string | undefined;
  /**
   * Bindings of plain selections (agent or registry default, nothing else asked), computed once:
   * the common case of every model call. Cleared whenever the registry changes.
   */
  private readonly registryDefaultBindings = new Map<string, ResolvedModelBinding<State>>();
  private readonly agentDefaultBindings = new Map<string, ResolvedModelBinding<State>>();

  register(name: string, model: ChatModel<State>, options: { pricing?: ModelPricing } = {}): this {
    if (typeof name !== "string" || name === "") {
      throw new TinyAgentsError("validation", "model name must be a non-empty string", {
        details: { field: "name" },
      });
    }
    if (typeof model?.invoke !== "function") {
      throw new TinyAgentsError(
        "validation",
        `model "${name}" does not implement ChatModel (no invoke function)`,
        {
          details: { field: "model", name },
        },
      );
    }
    const registration: ModelRegistration<State> = { name, model };
    if (options.pricing !== undefined) registration.pricing = options.pricing;
    this.models.set(name, registration);
    this.defaultName ??= name;
    this.registryDefaultBindings.clear();
    this.agentDefaultBindings.clear();
    return this;
  }

  /**
   * A copy of this registry with `model` added under `name` (this registry is unchanged): how a
   * run uses a `ChatModel` it was given (`agent.run(input, { model })`) without registering it.
   * Registrations are shared, so usage of the other models still prices the same.
   */
  withModel(name: string, model: ChatModel<State>): ModelRegistry<State> {
    const copy = new ModelRegistry<State>();
    for (const [key, registration] of this.models) copy.models.set(key, registration);
    copy.defaultName = this.defaultName;
    return copy.register(name, model);
  }

  /** The registered name of this exact model object, if it is registered. */
  nameOf(model: ChatModel<State>): string | undefined {
    for (const [name, registration] of this.models) if (registration.model === model) return name;
    return undefined;
  }

  /** Make `name` the registry default (it must be registered). */
  setDefault(name: string): this {
    this.require(name);
    this.defaultName = name;
    this.registryDefaultBindings.clear();
    this.agentDefaultBindings.clear();
    return this;
  }

  get defaultModel(): string | undefined {
    return this.defaultName;
  }

  get(name: string): ModelRegistration<State> | undefined {
    return this.models.get(name);
  }

  has(name: string): boolean {
    return this.models.has(name);
  }

  names(): string[] {
    return [...this.models.keys()].sort();
  }

  /** A registration by name, or a `model_not_found` error listing what is registered. */
  require(name: string): ModelRegistration<State> {
    const found = this.models.get(name);
    if (found === undefined) throw this.notFound(`model "${name}" is not registered`, name);
    return found;
  }

  /**
   * Pick the model for a call. Throws `model_not_found` when nothing fits. The returned binding
   * may be shared between calls: treat it as read-only.
   */
  resolve(selection: ModelSelection = {}): ResolvedModelBinding<State> {
    if (
      selection.override === undefined &&
      selection.required === undefined &&
      (selection.hints === undefined || selection.hints.length === 0) &&
      (selection.reusePrevious !== true || selection.previous === undefined)
    ) {
      const plain = this.plainBinding(selection.agentDefault);
      if (plain !== undefined) return plain;
    }
    return this.resolveCandidates(selection);
  }

  /** The binding of the agent default (if registered) or the registry default, memoized. */
  private plainBinding(agentDefault: string | undefined): ResolvedModelBinding<State> | undefined {
    const source: ModelResolutionSource = agentDefault === undefined ? "registry_default" : "agent_default";
    const name = agentDefault ?? this.defaultName;
    if (name === undefined) return undefined;
    const cache = agentDefault === undefined ? this.registryDefaultBindings : this.agentDefaultBindings;
    let binding = cache.get(name);
    if (binding === undefined) {
      const registration = this.models.get(name);
      // An unregistered agent default is skipped (and reported) by the full resolution.
      // So is a retired model (full resolution skips it, with the reason).
      if (registration === undefined || registration.model.profile?.status === "retired") return undefined;
      const resolved: ResolvedModel = {
        name: registration.name,
        provider: registration.model.provider,
        providerModelId: registration.model.modelId,
        source,
        fallbackHistory: [],
      };
      binding = { registration, resolved, skipped: NOTHING_SKIPPED };
      cache.set(name, binding);
    }
    return binding;
  }

  private resolveCandidates(selection: ModelSelection): ResolvedModelBinding<State> {
    const skipped: SkippedCandidate[] = [];
    const required = selection.required ?? {};
    const consider = (name: string | undefined, source: ModelResolutionSource) => {
      if (name === undefined) return undefined;
      const registration = this.models.get(name);
      if (registration === undefined) {
        skipped.push({ name, source, reason: "not registered" });
        return undefined;
      }
      const unmet = unmetCapabilities(registration.model.profile, required);
      if (unmet.length > 0) {
        skipped.push({ name, source, reason: `missing ${unmet.join(", ")}` });
        return undefined;
      }
      return registration;
    };
    if (selection.override !== undefined && !this.models.has(selection.override)) {
      throw this.notFound(
        `model "${selection.override}" requested by the request is not registered`,
        selection.override,
      );
    }
    const hints = [...(selection.hints ?? [])].sort((a, b) => b.priority - a.priority);
    const candidates: [string | undefined, ModelResolutionSource][] = [
      [selection.override, "request_override"],
      [selection.reusePrevious ? selection.previous : undefined, "state_reuse"],
      ...hints.map((h): [string, ModelResolutionSource] => [h.model, "hint"]),
      [selection.agentDefault, "agent_default"],
      [this.defaultName, "registry_default"],
    ];
    for (const [name, source] of candidates) {
      const registration = consider(name, source);
      if (registration === undefined) continue;
      const resolved: ResolvedModel = {
        name: registration.name,
        provider: registration.model.provider,
        providerModelId: registration.model.modelId,
        source,
        fallbackHistory: [],
      };
      if (selection.override !== undefined && selection.override !== registration.name) {
        resolved.requested = selection.override;
      }
      return { registration, resolved, skipped };
    }
    const why = skipped.map((s) => `${s.name} (${s.source}): ${s.reason}`).join("; ");
    throw this.notFound(
      this.models.size === 0
        ? "no model is registered; register one with harness.registerModel(name, model)"
        : `no registered model satisfies the request${why ? ` — ${why}` : ""}`,
      selection.override,
    );
  }

  private notFound(message: string, name: string | undefined): TinyAgentsError {
    const registered = this.names();
    return new TinyAgentsError(
      "model_not_found",
      `${message}; registered models: ${registered.join(", ") || "(none)"}`,
      {
        details: { ...(name === undefined ? {} : { name }), registered },
      },
    );
  }
}
