import type { ResponseCache } from "../../cache/response-cache.js";
import { type ConformanceCase, equal, ok } from "./conformance-check.js";

/** The optional housekeeping a response cache may offer (the SQLite and Postgres ones do). */
type Housekeeping = ResponseCache & {
  delete?: (key: string) => boolean | Promise<boolean>;
  clear?: () => void | Promise<void>;
  size?: number | (() => Promise<number>);
  purgeExpired?: () => number | Promise<number>;
};

/** A ResponseCache under test. */
export interface ResponseCacheConformanceSubject {
  /** A fresh, EMPTY cache whose TTLs read `now`. */
  open(now: () => number): Promise<{ cache: ResponseCache }>;
}

/**
 * The ResponseCache contract, as runner-agnostic cases: get/put with replacement and TTL, exact
 * JSON round trips, and — where the cache has them — `delete`, `clear`, `size` and `purgeExpired`.
 */
export function responseCacheConformance(subject: ResponseCacheConformanceSubject): ConformanceCase[] {
  return [
    {
      name: "get/put with replacement and TTL; delete, clear, size and purgeExpired where present",
      run: async () => {
        let now = 1_000;
        const cache = (await subject.open(() => now)).cache as Housekeeping;
        const size = async () =>
          typeof cache.size === "function" ? cache.size() : (cache.size as number | undefined);
        equal(await cache.get("fp-1"), undefined, "a miss");
        await cache.put("fp-1", { text: "hi", usage: { inputTokens: 3 } });
        await cache.put("fp-2", "short", { ttlMs: 5 });
        equal(await cache.get("fp-1"), { text: "hi", usage: { inputTokens: 3 } }, "a hit");
        equal(await cache.get("fp-2"), "short", "live before its TTL");
        if (cache.size !== undefined) equal(await size(), 2, "size");
        now += 5;
        equal(await cache.get("fp-2"), undefined, "expired");
        if (cache.size !== undefined) equal(await size(), 1, "size after expiry");
        if (cache.purgeExpired !== undefined) ok((await cache.purgeExpired()) <= 1, "purgeExpired");
        await cache.put("fp-1", ["replaced"]);
        equal(await cache.get("fp-1"), ["replaced"], "put replaces");
        if (cache.delete !== undefined) {
          equal(await cache.delete("fp-1"), true, "delete");
          equal(await cache.delete("fp-1"), false, "second delete");
          equal(await cache.get("fp-1"), undefined, "deleted");
        }
        if (cache.clear !== undefined) {
          await cache.put("a", 1);
          await cache.put("b", 2);
          await cache.clear();
          equal(await cache.get("a"), undefined, "cleared");
          if (cache.size !== undefined) equal(await size(), 0, "size after clear");
        }
      },
    },
  ];
}
