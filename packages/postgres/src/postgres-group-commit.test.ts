import { afterThisTurn } from "@tinyagents/harness/observability";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresGroupCommit } from "./postgres-group-commit.js";
import type { StatementPart } from "./postgres-one-statement-commit.js";

const part = { kind: "append" } as unknown as StatementPart;
const target = { table: "log", database: "test" };

describe("PostgresGroupCommit", () => {
  it("starts the commit of writes handed in at a turn end in that same turn end, not one turn later", async () => {
    const order: string[] = [];
    // No pool is reached: every write has its statement part, so the batch goes to the one-statement commit.
    const commit = new PostgresGroupCommit({} as pg.Pool, async (parts) => {
      order.push(`commit of ${parts.length}`);
      return parts.map(() => undefined);
    });
    const writes: Promise<unknown>[] = [];
    // Two writers woken by the same turn end hand in their batches (as the journal queue and the
    // status writer do); a marker queued before that turn end ran comes right after it.
    const turnEnd = afterThisTurn();
    for (let i = 0; i < 2; i++)
      writes.push(turnEnd.then(() => commit.submit("append", target, async () => undefined, part)));
    const marker = new Promise<void>((resolve) =>
      setImmediate(() => {
        order.push("next immediate");
        resolve();
      }),
    );
    await Promise.all([...writes, marker]);
    expect(order).toEqual(["commit of 2", "next immediate"]);
  });

  it("outside a turn end's writers, a write commits at the end of the current turn", async () => {
    const order: string[] = [];
    const commit = new PostgresGroupCommit({} as pg.Pool, async (parts) => {
      order.push(`commit of ${parts.length}`);
      return parts.map(() => undefined);
    });
    const write = commit.submit("append", target, async () => undefined, part);
    order.push("submitted");
    await write;
    expect(order).toEqual(["submitted", "commit of 1"]);
  });
});
