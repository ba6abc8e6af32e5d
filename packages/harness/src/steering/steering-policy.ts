import { STEERING_COMMAND_KINDS, type SteeringCommandKind } from "./steering-command.js";

/**
 * Which steering command kinds a run accepts. Fail-closed: `new SteeringPolicy()` allows
 * nothing; `allow(kind)` returns a new policy that also allows `kind`; `allowAll()` is for
 * tests and trusted in-process callers. Immutable, so one policy can be shared safely.
 */
export class SteeringPolicy {
  private readonly allowed: ReadonlySet<SteeringCommandKind>;

  constructor(allowed: Iterable<SteeringCommandKind> = []) {
    this.allowed = new Set(allowed);
  }

  /** A policy allowing every command kind. */
  static allowAll(): SteeringPolicy {
    return new SteeringPolicy(STEERING_COMMAND_KINDS);
  }

  /** A new policy that allows `kind` too. */
  allow(kind: SteeringCommandKind): SteeringPolicy {
    return new SteeringPolicy([...this.allowed, kind]);
  }

  /** Whether commands of `kind` are accepted. */
  allows(kind: SteeringCommandKind): boolean {
    return this.allowed.has(kind);
  }

  /** The allowed kinds, in the canonical order. */
  kinds(): SteeringCommandKind[] {
    return STEERING_COMMAND_KINDS.filter((kind) => this.allowed.has(kind));
  }
}
