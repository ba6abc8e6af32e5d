/** Produces ids. Injected so tests get stable ids; the default is unique per process. */
export interface IdGenerator {
  /** A new id with the given prefix, for example `run` -> `run-k3x9-1`. */
  next(prefix: string): string;
}
