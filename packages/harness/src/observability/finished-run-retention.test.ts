import { describe, expect, it } from "vitest";
import { FinishedRunRetention } from "./finished-run-retention.js";

// Issue 37 item 11: the decision every SQL status store follows after a run finishes.
describe("FinishedRunRetention", () => {
  /** Drive `saves` finished saves over a table that really holds `rows` finished rows. */
  function drive(max: number, rows: number, saves: number) {
    const retention = new FinishedRunRetention(max);
    let table = rows;
    let recounts = 0;
    let evicted = 0;
    for (let i = 0; i < saves; i++) {
      table++;
      const next = retention.finished();
      if (next === "recount") recounts++;
      const excess = next === "recount" ? retention.counted(table) : next;
      table -= excess;
      evicted += excess;
      expect(table).toBeLessThanOrEqual(max); // exact with one writer
    }
    return { recounts, evicted, table };
  }

  it("counts once, then every max(256, maxFinishedRuns) finished saves, whatever the table size", () => {
    expect(drive(100, 0, 1_000)).toEqual({ recounts: 4, evicted: 900, table: 100 });
    expect(drive(10_000, 10_000, 1_000)).toEqual({ recounts: 1, evicted: 1_000, table: 10_000 });
    expect(drive(10_000, 10_000, 20_000)).toEqual({ recounts: 2, evicted: 20_000, table: 10_000 });
  });

  it("evicts exactly the excess, one row per finished save in the steady state", () => {
    const retention = new FinishedRunRetention(3);
    expect(retention.finished()).toBe("recount");
    expect(retention.counted(5)).toBe(2); // rows from before (another process, a restart)
    expect([retention.finished(), retention.finished()]).toEqual([1, 1]);
  });

  it("a recount catches rows another writer added", () => {
    const retention = new FinishedRunRetention(300);
    retention.counted(300);
    for (let i = 0; i < 299; i++) retention.finished(); // this writer's own, evicted one by one
    expect(retention.finished()).toBe("recount"); // the 300th since the count
    expect(retention.counted(450)).toBe(150); // 150 more finished elsewhere
  });

  it("with evictBatch n, evicts once the excess reaches n: the newest maxFinishedRuns are always kept", () => {
    const retention = new FinishedRunRetention(100, { evictBatch: 8 });
    expect(retention.finished()).toBe("recount");
    expect(retention.counted(105)).toBe(0); // 5 over: under a batch, kept for now
    expect(Array.from({ length: 3 }, () => retention.finished())).toEqual([0, 0, 8]); // 106, 107, 108
    let table = 100;
    for (let i = 0; i < 1_000; i++) {
      table++;
      const next = retention.finished();
      table -= next === "recount" ? retention.counted(table) : next;
      expect(table).toBeGreaterThanOrEqual(100);
      expect(table).toBeLessThan(108);
    }
    expect(new FinishedRunRetention(10).evictBatch).toBe(1); // the default: exact
  });
});
