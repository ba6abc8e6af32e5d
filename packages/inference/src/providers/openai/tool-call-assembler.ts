import { isJsonObject, type JsonValue } from "../../json/json-value.js";
import type { ModelStreamItem, ToolCallDeltaItem } from "../../model/stream-item.js";
import { ToolArgumentsBuffer } from "./tool-arguments.js";

/** Options for {@link ToolCallAssembler}. */
export interface ToolCallAssemblerOptions {
  /** Id for a call the server sent without one. */
  generateId: () => string;
}

interface Slot {
  /** The id the server gave (used for conflict detection), if any. */
  wireId: string | undefined;
  name: string;
  args: ToolArgumentsBuffer;
  /** Output index, assigned when the slot is first emitted. */
  out: number | undefined;
  nameSent: boolean;
}

/**
 * Reassembles streamed tool calls from OpenAI-style `delta.tool_calls` fragments (and unary
 * `message.tool_calls`, fed as one delta) into `tool_call_delta` stream items.
 *
 * Slot rules, per fragment:
 * - an `index` selects the slot registered for that index — unless the fragment carries a
 *   non-empty `id` that differs from the slot's id (Ollama sends parallel calls all at index 0):
 *   then the slot already holding that id is used, or a new one is opened, and the index is
 *   re-pointed so later id-less continuations follow the newest call;
 * - without `index` (Mistral), the fragment's position in the array stands in for it, except
 *   that a known id selects its slot, and a whole new call (it has a name or arguments) never
 *   continues a slot whose arguments are already a complete object;
 * - the first non-empty name wins; argument fragments concatenate (an `arguments` object is
 *   serialized); empty arguments become `{}`; broken ones go through the repair ladder (see
 *   `ToolArgumentsBuffer`) or end as an invalid call that keeps the raw text;
 * - a slot is emitted once it has a name or argument text; slots with neither are dropped;
 *   output indexes are 0, 1, 2, ... in order of first emission; a call without an id gets
 *   `generateId()` on its first item.
 */
export class ToolCallAssembler {
  private readonly slots: Slot[] = [];
  private readonly byIndex = new Map<number, Slot>();
  private readonly byId = new Map<string, Slot>();
  private nextOut = 0;
  private readonly generateId: () => string;

  constructor(options: ToolCallAssemblerOptions) {
    this.generateId = options.generateId;
  }

  /** True when at least one call has been emitted. */
  get hasCalls(): boolean {
    return this.nextOut > 0;
  }

  /** Fold one `tool_calls` array in; items for what can be streamed now go to `out`. */
  push(toolCalls: readonly JsonValue[], out: ModelStreamItem[]): void {
    for (let position = 0; position < toolCalls.length; position++) {
      const fragment = toolCalls[position];
      if (!isJsonObject(fragment)) continue;
      const fn = isJsonObject(fragment.function) ? fragment.function : {};
      const id = typeof fragment.id === "string" && fragment.id !== "" ? fragment.id : undefined;
      const name = typeof fn.name === "string" ? fn.name : "";
      const args =
        typeof fn.arguments === "string"
          ? fn.arguments
          : fn.arguments === undefined || fn.arguments === null
            ? ""
            : JSON.stringify(fn.arguments);
      const index = typeof fragment.index === "number" ? fragment.index : undefined;
      const slot = this.resolve(index, position, id, name !== "" || args !== "");
      if (slot.wireId === undefined && id !== undefined) {
        slot.wireId = id;
        this.byId.set(id, slot);
      }
      if (slot.name === "" && name !== "") slot.name = name;
      const ready = slot.args.push(args);
      this.emit(slot, ready, out);
    }
  }

  /** End of the answer: the rest of every call's arguments (repaired if needed) goes to `out`. */
  finish(out: ModelStreamItem[]): void {
    for (const slot of this.slots) this.emit(slot, slot.args.finish(), out, true);
  }

  private resolve(index: number | undefined, position: number, id: string | undefined, whole: boolean): Slot {
    if (index !== undefined) {
      const current = this.byIndex.get(index);
      if (
        current !== undefined &&
        (id === undefined || current.wireId === undefined || current.wireId === id)
      ) {
        return current;
      }
      const slot = (id === undefined ? undefined : this.byId.get(id)) ?? this.open();
      this.byIndex.set(index, slot);
      return slot;
    }
    if (id !== undefined) {
      const known = this.byId.get(id);
      if (known !== undefined) return known;
      const current = this.byIndex.get(position);
      if (current !== undefined && current.wireId === undefined && !current.args.complete && !whole)
        return current;
      const slot = this.open();
      this.byIndex.set(position, slot);
      return slot;
    }
    const current = this.byIndex.get(position);
    if (current !== undefined && !(whole && current.args.complete)) return current;
    const slot = this.open();
    this.byIndex.set(position, slot);
    return slot;
  }

  private open(): Slot {
    const slot: Slot = {
      wireId: undefined,
      name: "",
      args: new ToolArgumentsBuffer(),
      out: undefined,
      nameSent: false,
    };
    this.slots.push(slot);
    return slot;
  }

  private emit(slot: Slot, argumentsDelta: string, out: ModelStreamItem[], final = false): void {
    const sendName = !slot.nameSent && slot.name !== "";
    if (slot.out === undefined) {
      if (!sendName && argumentsDelta === "" && !(final && slot.args.hasText)) return;
      slot.out = this.nextOut++;
      const item: ToolCallDeltaItem = {
        type: "tool_call_delta",
        index: slot.out,
        id: slot.wireId ?? this.generateId(),
      };
      if (sendName) item.name = slot.name;
      if (argumentsDelta !== "") item.argumentsDelta = argumentsDelta;
      slot.nameSent = sendName;
      out.push(item);
      return;
    }
    if (!sendName && argumentsDelta === "") return;
    const item: ToolCallDeltaItem = { type: "tool_call_delta", index: slot.out };
    if (sendName) {
      item.name = slot.name;
      slot.nameSent = true;
    }
    if (argumentsDelta !== "") item.argumentsDelta = argumentsDelta;
    out.push(item);
  }
}
