import type { IdGenerator } from "../contracts/id-generator.js";

export type { IdGenerator } from "../contracts/id-generator.js";

/** Ids unique within the process and very likely across processes: `{prefix}-{nonce}-{n}`. */
export function createRandomIds(): IdGenerator {
  const nonce = Math.random().toString(36).slice(2, 8);
  let n = 0;
  return { next: (prefix) => `${prefix}-${nonce}-${(++n).toString(36)}` };
}
