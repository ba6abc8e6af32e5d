import { assistant, TinyAgentsError, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { InMemoryAppendLog } from "../store/append-log.js";
import { InMemoryKeyValueStore } from "../store/key-value-store.js";
import { StoreChatHistory } from "./store-chat-history.js";

describe.each([
  ["an AppendLog", () => new StoreChatHistory({ log: new InMemoryAppendLog() })],
  ["a KeyValueStore", () => new StoreChatHistory({ store: new InMemoryKeyValueStore() })],
])("StoreChatHistory over %s", (_name, make) => {
  it("appends, loads and clears per thread", async () => {
    const history = make();
    await history.append("t/1", [user("hi"), assistant("hello")]);
    await history.append("t/1", [user("again")]);
    await history.append("t2", [user("other")]);
    expect((await history.load("t/1")).map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    await history.clear("t/1");
    expect(await history.load("t/1")).toEqual([]);
    await history.append("t/1", [user("fresh")]);
    expect(await history.load("t/1")).toEqual([user("fresh")]);
    expect(await history.load("t2")).toEqual([user("other")]);
    expect(await history.load("never")).toEqual([]);
  });

  it("serializes concurrent writes to a thread: nothing lost, batches never interleave, reads see writes", async () => {
    const history = make();
    const writes = Array.from({ length: 50 }, (_, i) =>
      history.append("t", [user(`q${i}`), assistant(`a${i}`)]),
    );
    const read = history.load("t");
    await Promise.all(writes);
    const all = await read;
    expect(all).toHaveLength(100);
    for (let i = 0; i < 50; i++) {
      expect(all[2 * i]).toEqual(user(`q${i}`));
      expect(all[2 * i + 1]).toEqual(assistant(`a${i}`));
    }
  });

  it("rejects a missing thread id", async () => {
    const history = make();
    await expect(history.load("")).rejects.toSatisfy((e) => TinyAgentsError.isInstance(e, "validation"));
    await expect(history.append("t", "nope" as never)).rejects.toThrow(/array/);
  });
});
