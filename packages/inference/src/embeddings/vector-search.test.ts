import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { cosineSimilarity } from "./cosine-similarity.js";
import { InMemoryVectorStore } from "./in-memory-vector-store.js";
import { MockEmbeddingModel } from "./mock-embedding-model.js";
import { Retriever } from "./retriever.js";

describe("cosineSimilarity", () => {
  it("is 1 for the same direction, 0 for orthogonal or zero vectors, -1 for opposite", () => {
    expect(cosineSimilarity([1, 2, 3], [2, 4, 6])).toBeCloseTo(1);
    expect(cosineSimilarity([1, 0], [0, 5])).toBe(0);
    expect(cosineSimilarity([0, 0], [1, 1])).toBe(0);
    expect(cosineSimilarity([1, -1], [-1, 1])).toBeCloseTo(-1);
  });

  it("refuses vectors of different lengths", () => {
    expect(() => cosineSimilarity([1], [1, 2])).toThrow(/different lengths \(1 and 2\)/);
  });
});

describe("MockEmbeddingModel", () => {
  it("is deterministic, normalized, and similar for texts sharing words", async () => {
    const model = new MockEmbeddingModel({ dimensions: 32 });
    const { vectors, usage } = await model.embed([
      "the cat sat",
      "the cat sat",
      "a cat slept",
      "quantum chromodynamics",
      "",
    ]);
    expect(vectors[0]).toEqual(vectors[1]);
    expect(vectors[0]).toHaveLength(32);
    expect(Math.hypot(...vectors[0]!)).toBeCloseTo(1);
    expect(cosineSimilarity(vectors[0]!, vectors[2]!)).toBeGreaterThan(
      cosineSimilarity(vectors[0]!, vectors[3]!),
    );
    expect(vectors[4]!.every((x) => x === 0)).toBe(true);
    expect(usage?.inputTokens).toBe(11);
    expect(model.calls).toHaveLength(1);
    expect(() => new MockEmbeddingModel({ dimensions: 0 })).toThrow(/positive integer/);
  });
});

describe("InMemoryVectorStore", () => {
  it("searches by cosine with topK, minScore, metadata and predicate filters", async () => {
    const store = new InMemoryVectorStore();
    await store.add([
      { id: "a", vector: [1, 0], metadata: { lang: "en", tags: ["x"] } },
      { id: "b", vector: [0.9, 0.1], metadata: { lang: "de" } },
      { id: "c", vector: [0, 1], text: "c", metadata: { lang: "en" } },
      { id: "d", vector: [1, 0], metadata: { lang: "en", tags: ["x"] } },
    ]);
    expect(store.size).toBe(4);
    const top = await store.search([1, 0], { topK: 3 });
    expect(top.map((hit) => hit.id)).toEqual(["a", "d", "b"]);
    expect(top[0]?.score).toBeCloseTo(1);
    expect(
      (await store.search([1, 0], { filter: { lang: "en", tags: ["x"] } })).map((hit) => hit.id),
    ).toEqual(["a", "d"]);
    expect(
      (await store.search([1, 0], { filter: (doc) => doc.text !== undefined })).map((hit) => hit.id),
    ).toEqual(["c"]);
    expect((await store.search([0, 1], { minScore: 0.5 })).map((hit) => hit.id)).toEqual(["c"]);
  });

  it("replaces by id in place, deletes, and never shares objects with callers", async () => {
    const store = new InMemoryVectorStore();
    const doc = { id: "a", vector: [1, 0], metadata: { n: 1 } };
    await store.add([doc, { id: "b", vector: [1, 0] }]);
    doc.vector[0] = -1;
    doc.metadata.n = 2;
    expect(store.get("a")).toEqual({ id: "a", vector: [1, 0], metadata: { n: 1 } });
    await store.add([{ id: "a", vector: [1, 0], text: "new" }]);
    expect((await store.search([1, 0])).map((hit) => [hit.id, hit.text])).toEqual([
      ["a", "new"],
      ["b", undefined],
    ]);
    expect(await store.delete(["a", "zzz"])).toBe(1);
    expect(store.size).toBe(1);
  });

  it("refuses mismatched dimensions, bad vectors, bad ids and a bad topK", async () => {
    const store = new InMemoryVectorStore();
    await store.add([{ id: "a", vector: [1, 0] }]);
    const fails = async (promise: Promise<unknown>, pattern: RegExp) => {
      const error = await promise.catch((caught: unknown) => caught);
      expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
      expect((error as Error).message).toMatch(pattern);
    };
    await fails(
      store.add([{ id: "b", vector: [1, 0, 0] }]),
      /3-number vector but the store holds 2-number vectors/,
    );
    await fails(store.add([{ id: "b", vector: [Number.NaN, 0] }]), /vector of finite numbers/);
    await fails(store.add([{ id: "", vector: [1, 0] }]), /non-empty string id/);
    await fails(store.search([1, 0, 0]), /query vector has 3 numbers but the stored vectors have 2/);
    await fails(store.search([1, 0], { topK: 0 }), /topK must be a positive integer/);
    expect(store.size).toBe(1);
  });
});

describe("Retriever", () => {
  it("indexes texts and retrieves the closest ones with their text and metadata", async () => {
    const model = new MockEmbeddingModel({ dimensions: 128 });
    const retriever = new Retriever({ model, topK: 2 });
    const ids = await retriever.add([
      "Paris is the capital of France",
      { id: "berlin", text: "Berlin is the capital of Germany", metadata: { country: "de" } },
      "Bananas are rich in potassium",
    ]);
    expect(ids).toEqual(["doc-1", "berlin", "doc-2"]);
    expect(model.calls).toHaveLength(1);
    const hits = await retriever.retrieve("What is the capital of France?");
    expect(hits.map((hit) => hit.id)).toEqual(["doc-1", "berlin"]);
    expect(hits[0]?.text).toBe("Paris is the capital of France");
    const german = await retriever.retrieve("capital", { filter: { country: "de" }, topK: 5 });
    expect(german.map((hit) => hit.id)).toEqual(["berlin"]);
    expect(await retriever.add([])).toEqual([]);
  });
});
