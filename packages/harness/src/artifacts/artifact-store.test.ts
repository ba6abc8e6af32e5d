import { describe, expect, it } from "vitest";
import { FakeTool } from "../testkit/fake-tool.js";
import { runScript } from "../testkit/run-script.js";
import { artifactResult } from "./artifact-result.js";
import { ArtifactStore } from "./artifact-store.js";

describe("ArtifactStore", () => {
  it("stores text and bytes outside the transcript and reads them back", async () => {
    const store = new ArtifactStore({ now: () => 7 });
    const a = await store.put({ name: "notes.md", content: "# hi" });
    const b = await store.put({ name: "blob.bin", content: new Uint8Array([1, 2, 3]) });
    expect(a).toMatchObject({ name: "notes.md", mimeType: "text/plain", bytes: 4, createdAt: 7 });
    expect(a.uri).toBe(`artifact://${a.id}`);
    expect(b).toMatchObject({ mimeType: "application/octet-stream", bytes: 3 });
    expect((await store.require(a.id)).content).toBe("# hi");
    expect((await store.require(b.id)).content).toEqual(new Uint8Array([1, 2, 3]));
    expect(await store.list()).toEqual([a.id, b.id].sort());
    expect(store.totalBytes).toBe(7);
    await expect(store.require("nope")).rejects.toThrow(/no artifact "nope"/);
  });

  it("fails closed on size limits, naming the limit", async () => {
    const store = new ArtifactStore({ limits: { maxArtifactBytes: 5, maxTotalBytes: 8 } });
    await expect(store.put({ name: "big", content: "123456" })).rejects.toMatchObject({
      code: "limit_exceeded",
      message: expect.stringContaining("maxArtifactBytes"),
    });
    await store.put({ name: "a", content: "12345" });
    await expect(store.put({ name: "b", content: "1234" })).rejects.toMatchObject({
      code: "limit_exceeded",
      message: expect.stringContaining("maxTotalBytes"),
    });
    await expect(store.put({ name: "", content: "x" })).rejects.toMatchObject({ code: "validation" });
  });

  it("a tool returning an artifact reference: short text in the transcript, id tracked on the run", async () => {
    const store = new ArtifactStore();
    const big = "row\n".repeat(10_000);
    const { run, events, error } = await runScript({
      script: [{ toolCalls: [{ name: "export_csv" }] }, "exported"],
      tools: [
        FakeTool.of("export_csv", async (_args, ctx) =>
          artifactResult(
            await store.put({ name: "rows.csv", content: big, mimeType: "text/csv" }, ctx.run),
            "Exported.",
          ),
        ),
      ],
    });
    expect(error).toBeUndefined();
    expect(run.artifacts).toEqual(["artifact-1"]);
    const result = run.messages.find((m) => m.role === "tool");
    expect(result?.content).toEqual([
      { type: "text", text: "Exported.\n[artifact artifact-1: rows.csv, text/csv, 40000 bytes]" },
    ]);
    expect(events.ofType("artifact.stored")).toEqual([
      { type: "artifact.stored", artifactId: "artifact-1", name: "rows.csv", bytes: 40_000 },
    ]);
    expect((await store.require("artifact-1")).runId).toBe("run-1");
  });
});
