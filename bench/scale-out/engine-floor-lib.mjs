// What engine-floor-restate.mjs and engine-floor-dbos.mjs share: the hand-written 7-step workflow
// body (the conformance scenario's model replies and trivial tool work, each step through the
// engine's own step function), the alternating measurement and the printed table.
import { CONFORMANCE_CALLS, CONFORMANCE_INPUT, conformanceReply } from "@tinyagents/harness/testkit";
import { user } from "@tinyagents/inference";

/** Steps of one conformance run: 4 model calls, 3 tool calls. */
export const STEPS = 7;

/**
 * The hand-written workflow: the scenario's 7 steps, each `step(name, fn)` — the engine's own
 * step (`ctx.run`, `DBOS.runStep`). Returns the transcript length.
 */
export async function handWrittenRun(step) {
  const messages = [user(CONFORMANCE_INPUT)];
  for (let turn = 0; turn < 4; turn++) {
    const reply = await step(`model-${turn}`, async () => conformanceReply(messages).message);
    messages.push(reply);
    const call = CONFORMANCE_CALLS[turn];
    if (call === undefined) break;
    const result = await step(`tool-${call.id}`, async () => `${call.name} done`);
    messages.push({
      role: "tool",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: result }],
    });
  }
  return messages.length;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Run `tinyagents(id)` and `hand(id)` one after the other `runs` times (after two warm-up
 * rounds), alternating so both see the same machine load, and which goes first alternating too
 * (the second of a pair runs on a warmer server); the median ms per run of each, and the median
 * of the per-pair ratios (tinyagents / hand-written of the same round: robust to load that
 * changes between rounds on a shared machine).
 */
export async function measureAlternating(runs, tinyagents, hand) {
  const times = { tinyagents: [], hand: [] };
  const ratios = [];
  const timed = async (fn, id) => {
    const started = performance.now();
    await fn(id);
    return performance.now() - started;
  };
  for (let i = -2; i < runs; i++) {
    let ta;
    let hw;
    if (i % 2 === 0) {
      ta = await timed(tinyagents, `ta-${i}`);
      hw = await timed(hand, `hand-${i}`);
    } else {
      hw = await timed(hand, `hand-${i}`);
      ta = await timed(tinyagents, `ta-${i}`);
    }
    if (i >= 0) {
      times.tinyagents.push(ta);
      times.hand.push(hw);
      ratios.push(ta / hw);
    }
  }
  return { tinyagents: median(times.tinyagents), hand: median(times.hand), pairRatio: median(ratios) };
}

/** Print the Markdown table and the overhead line. */
export function printFloorTable(engine, adapter, runs, { tinyagents: ta, hand: hw, pairRatio }) {
  console.log(`| ${engine}, sequential, ${STEPS} steps/run | ms/run (median) | ms/step |`);
  console.log("| --- | --- | --- |");
  console.log(`| hand-written workflow | ${hw.toFixed(1)} | ${(hw / STEPS).toFixed(1)} |`);
  console.log(`| ${adapter} | ${ta.toFixed(1)} | ${(ta / STEPS).toFixed(1)} |`);
  console.log(
    `\nOverhead over the engine's floor: ${((ta - hw) / STEPS).toFixed(1)} ms per step, ${(ta / hw).toFixed(2)}x as a ratio of medians, ${pairRatio.toFixed(2)}x as the median of ${runs} same-round ratios (target <= 1.3x); ${runs} runs each.`,
  );
}
