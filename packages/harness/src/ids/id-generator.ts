/** Produces ids. Injected so tests get stable ids; the default is unique per process. */
export interface IdGenerator {
  /** A new id with the given prefix, for example `run` -> `run-k3x9-1`. */
  next(prefix: string): string;
}

/** Ids unique within the process and very likely across processes: `{prefix}-{nonce}-{n}`. */
export function createRandomIds(): IdGenerator {
  const nonce = Math.random().toString(36).slice(2, 8);
  let n = 0;
  return { next: (prefix) => `${prefix}-${nonce}-${(++n).toString(36)}` };
}
