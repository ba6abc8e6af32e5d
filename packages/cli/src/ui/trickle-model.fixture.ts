/** Test support (not part of the build's entries): a scripted model that streams for real. */
import { ScriptedModel } from "@tinyagents/harness/testkit";
import type { ModelStreamItem } from "@tinyagents/inference";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A scripted model that really streams: a pause after each stream item, so its first token comes
 * before the call ends (a reply emitted all at once at the end has no time to first token).
 */
export class TrickleModel extends ScriptedModel {
  override async *stream(
    ...args: Parameters<ScriptedModel["stream"]>
  ): AsyncGenerator<ModelStreamItem, void, undefined> {
    for await (const item of super.stream(...args)) {
      yield item;
      await wait(8);
    }
  }
}
