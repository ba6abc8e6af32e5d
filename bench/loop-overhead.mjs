// Loop overhead: the tinyagents loop vs a hand-written loop, same scripted model and tool,
// same process, S = 1, 10, 100 steps. Prints microseconds per step, the ratio to the
// hand-written loop, and flatness (per-step cost at S=100 over S=1).
// Usage: npm run bench   (builds first; runs against packages/*/dist)
import { writeFileSync } from "node:fs";
import { AgentHarness, tool } from "@tinyagents/harness";

const STEPS = [1, 10, 100];
const TARGET_STEPS_PER_SAMPLE = 20_000;
const SAMPLES = 7;

/** A model that asks for the tool S-1 times, then answers. Allocation-light, no cloning. */
function scriptedModel(steps) {
  let call = 0;
  return {
    provider: "bench",
    modelId: "scripted",
    reset() {
      call = 0;
    },
    async invoke() {
      call++;
      if (call < steps) {
        return {
          message: {
            role: "assistant",
            content: [],
            toolCalls: [{ id: `c${call}`, name: "echo", arguments: { n: call } }],
          },
          finishReason: "tool_calls",
        };
      }
      return {
        message: { role: "assistant", content: [{ type: "text", text: "done" }], toolCalls: [] },
        finishReason: "stop",
      };
    },
  };
}

const echo = tool({
  name: "echo",
  description: "echo",
  inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  execute: (args) => String(args.n),
});

/** The physical floor: the same model and tool driven by the simplest possible loop. */
async function handWritten(model, input) {
  const messages = [{ role: "user", content: [{ type: "text", text: input }] }];
  for (;;) {
    const response = await model.invoke({ messages });
    messages.push(response.message);
    if (response.message.toolCalls.length === 0) return messages;
    for (const call of response.message.toolCalls) {
      const out = await echo.execute(call.arguments, {});
      messages.push({
        role: "tool",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: out }],
        isError: false,
      });
    }
  }
}

function makeHarness(model, steps) {
  return new AgentHarness({ policy: { limits: { maxModelCalls: steps + 1, maxToolCalls: steps + 1 } } })
    .registerModel("bench", model)
    .registerTool(echo);
}

async function measure(label, steps, runOnce) {
  const runs = Math.max(1, Math.round(TARGET_STEPS_PER_SAMPLE / steps));
  for (let i = 0; i < Math.min(runs, 200); i++) await runOnce(); // warm-up
  const samples = [];
  for (let s = 0; s < SAMPLES; s++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) await runOnce();
    const ns = Number(process.hrtime.bigint() - start);
    samples.push(ns / 1000 / (runs * steps));
  }
  samples.sort((a, b) => a - b);
  return {
    label,
    steps,
    median: samples[Math.floor(SAMPLES / 2)],
    min: samples[0],
    max: samples[SAMPLES - 1],
  };
}

const results = [];
for (const steps of STEPS) {
  const model = scriptedModel(steps);
  const harness = makeHarness(model, steps);
  const hand = await measure("hand-written", steps, () => {
    model.reset();
    return handWritten(model, "go");
  });
  const loop = await measure("tinyagents", steps, () => {
    model.reset();
    return harness.run("go");
  });
  const streaming = await measure("tinyagents streaming", steps, async () => {
    model.reset();
    for await (const _ of harness.stream("go"));
  });
  results.push({ steps, hand, loop, streaming, ratio: loop.median / hand.median });
}

const pad = (s, n) => String(s).padStart(n);
console.log(`node ${process.version} — microseconds per step (median of ${SAMPLES} samples, [min-max])\n`);
console.log(
  `${pad("S", 4)} ${pad("hand-written", 22)} ${pad("tinyagents", 22)} ${pad("streaming", 22)} ${pad("ratio", 8)}`,
);
const fmt = (m) => `${m.median.toFixed(2)} [${m.min.toFixed(2)}-${m.max.toFixed(2)}]`;
for (const r of results) {
  console.log(
    `${pad(r.steps, 4)} ${pad(fmt(r.hand), 22)} ${pad(fmt(r.loop), 22)} ${pad(fmt(r.streaming), 22)} ${pad(r.ratio.toFixed(0) + "x", 8)}`,
  );
}
const first = results[0];
const last = results.at(-1);
const flatness = last.loop.median / first.loop.median;
console.log(
  `\nflatness (per-step cost S=${last.steps} / S=${first.steps}): ${flatness.toFixed(2)} (target <= 1.5)`,
);
console.log(
  `per-step overhead at S=${last.steps}: ${(last.loop.median - last.hand.median).toFixed(2)} us (target < 20 us)`,
);

const out = new URL("./results/loop-overhead.json", import.meta.url);
writeFileSync(
  out,
  JSON.stringify({ node: process.version, date: new Date().toISOString(), results, flatness }, null, 2) +
    "\n",
);
console.log(`\nwrote ${out.pathname}`);
