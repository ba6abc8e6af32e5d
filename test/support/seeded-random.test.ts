import { afterEach, describe, expect, it, vi } from "vitest";
import { seededRandom, seedFrom, TEST_SEED_ENV, testSeed } from "./seeded-random.js";

const saved = process.env[TEST_SEED_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[TEST_SEED_ENV];
  else process.env[TEST_SEED_ENV] = saved;
});

const take = (next: () => number, n: number) => Array.from({ length: n }, () => next());

describe("seededRandom", () => {
  it("is mulberry32: the sequences the crash suites and generators drew before it was shared", () => {
    // Values of the copies it replaced (redaction-delta's seed 21, durable-crash's 0x32_2026).
    expect(take(seededRandom(21), 3)).toEqual([0.4322912215720862, 0.4470290595199913, 0.2832840313203633]);
    expect(take(seededRandom(0x32_2026), 3)).toEqual([
      0.6918258133810014, 0.5931989452801645, 0.23081183806061745,
    ]);
  });

  it("repeats for a seed, differs between seeds, stays in [0, 1)", () => {
    const a = take(seededRandom(17), 1000);
    expect(take(seededRandom(17), 1000)).toEqual(a);
    expect(take(seededRandom(18), 1000)).not.toEqual(a);
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

describe("seedFrom", () => {
  it("gives each child process its own, repeatable seed from a text", () => {
    expect(seedFrom("17:run-3:first")).toBe(seedFrom("17:run-3:first"));
    expect(seedFrom("17:run-3:first")).not.toBe(seedFrom("17:run-3:second"));
    expect(seedFrom("")).toBe(0x811c9dc5); // FNV-1a's offset basis
    expect(Number.isInteger(seedFrom("x")) && seedFrom("x") >= 0 && seedFrom("x") < 2 ** 32).toBe(true);
  });
});

describe("testSeed", () => {
  it("is the suite's default unless TINYAGENTS_TEST_SEED replaces it", () => {
    delete process.env[TEST_SEED_ENV];
    expect(testSeed(36)).toBe(36);
    process.env[TEST_SEED_ENV] = "12345";
    expect(testSeed(36)).toBe(12345);
    process.env[TEST_SEED_ENV] = " ";
    expect(testSeed(36)).toBe(36);
  });

  it("refuses a seed that is not an integer, naming the variable", () => {
    process.env[TEST_SEED_ENV] = "0.5";
    expect(() => testSeed(36)).toThrow(/TINYAGENTS_TEST_SEED must be an integer, got "0.5"/);
  });

  // The first test fails on purpose (`it.fails` passes only if it throws); the second reads what
  // the failure printed.
  const printed: unknown[] = [];
  it.fails("a test that fails after taking its seed prints the seed", () => {
    vi.spyOn(console, "error").mockImplementation((line: unknown) => {
      printed.push(line);
    });
    process.env[TEST_SEED_ENV] = "987";
    testSeed(36);
    throw new Error("the schedule broke something");
  });
  it("... and how to replay it", () => {
    vi.restoreAllMocks();
    expect(printed).toEqual([
      "a test that fails after taking its seed prints the seed: random schedule seed 987; rerun with TINYAGENTS_TEST_SEED=987 npx vitest run test/support/seeded-random.test.ts",
    ]);
  });
});
