// Markdown rendering of the suite's aggregated results, and the targets for ours.

export const TARGETS = {
  w1UsPerStep: 20,
  w1Growth: 1.5,
  w2DeltasPerSecond: 1_000_000,
  w3TotalMs: 150,
  w3InFlightBytes: 20 * 1024,
  w3FlatBytes: 1024 * 1024,
  w4ImportMs: 40,
  w4ClosureBytes: 3_000_000,
};

export function num(v) {
  if (v === undefined || v === null || !Number.isFinite(v)) return "n/a";
  const a = Math.abs(v);
  if (a >= 1e6) return `${(v / 1e6).toFixed(2)}M`;
  if (a >= 10_000) return `${(v / 1e3).toFixed(0)}k`;
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

const kb = (bytes) =>
  bytes === undefined || !Number.isFinite(bytes) ? "n/a" : `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
const ratio = (r) =>
  r === undefined || !Number.isFinite(r) ? "" : ` · ${r >= 10 ? r.toFixed(0) : r.toFixed(1)}×`;
const range = (s, fmt = num) => (s === undefined ? "n/a" : `${fmt(s.median)} [${fmt(s.min)}–${fmt(s.max)}]`);

function table(head, rows) {
  return [
    `| ${head.join(" | ")} |`,
    `| ${head.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

export function renderEnvironment(env) {
  const pkgs = Object.entries(env.packages)
    .map(([name, version]) => `${name} ${version ?? "?"}`)
    .join(", ");
  return [
    `- machine: ${env.nproc} × ${env.cpu} (${env.platform}), load average at start ${env.loadavg.join(" / ")}`,
    `- Node ${env.node}; commit ${env.commit ?? "?"}; ${env.date}`,
    `- packages: ${pkgs}`,
  ].join("\n");
}

export function renderW1(w1, labels) {
  const steps = w1.steps;
  const head = ["adapter", ...steps.map((s) => `S=${s}`), `S=${steps.at(-1)} / S=${steps[0]}`];
  const rows = Object.entries(w1.rows).map(([name, row]) => [
    labels[name],
    ...steps.map((s) => `${range(row[s]?.summary)}${ratio(row[s]?.ratio)}`),
    num(row.growth),
  ]);
  return `### W1 tool loop: µs per step (median [min–max] over ${w1.procs} processes · × hand-written)\n\n${table(head, rows)}`;
}

export function renderW2(w2, labels) {
  const rows = Object.entries(w2.rows).map(([name, row]) => [
    labels[name],
    range(row.summary),
    row.ratio === undefined ? "" : `${row.ratio >= 10 ? row.ratio.toFixed(0) : row.ratio.toFixed(1)}×`,
  ]);
  return `### W2 streaming: ${w2.deltas.toLocaleString("en-US")} text deltas, deltas/s (median [min–max] over ${w2.procs} processes)\n\n${table(["adapter", "deltas/s", "hand-written is faster by"], rows)}`;
}

export function renderW3(w3, labels) {
  const rows = Object.entries(w3.rows).map(([name, row]) => [
    labels[name],
    `${range(row.totalMs)}${ratio(row.totalRatio)}`,
    `${range(row.inFlight, kb)}${ratio(row.inFlightRatio)}`,
    range(row.kept, kb),
    `${range(row.growth, kb)} ${row.flat ? "(flat)" : "(GROWS)"}`,
  ]);
  const head = [
    "adapter",
    "total ms",
    "live heap per in-flight run",
    "heap kept per result",
    `heap growth over ${w3.batches} batches`,
  ];
  return `### W3 concurrency: ${w3.runs.toLocaleString("en-US")} concurrent runs × ${w3.steps} steps (median [min–max] over ${w3.procs} processes · × hand-written)\n\n${table(head, rows)}`;
}

export function renderW4(w4) {
  const rows = Object.entries(w4.rows).map(([name, row]) => [
    `\`${name}\``,
    range(row.importMs),
    row.closure === undefined ? "n/a" : mb(row.closure.bytes),
    row.closure === undefined ? "n/a" : String(row.closure.packages.length),
  ]);
  return `### W4 cold start: import in a fresh process (ms, median [min–max] over ${w4.procs} processes) and installed dependency closure\n\n${table(["package", "import ms", "installed closure", "packages"], rows)}`;
}

/** Our targets from the issue, with the measured figure and met/missed. */
export function evaluateTargets(results) {
  const out = [];
  const add = (target, figure, met) => out.push({ target, figure, met });
  const ours = results.w1?.rows.tinyagents;
  if (ours !== undefined) {
    for (const s of results.w1.steps) {
      const m = ours[s]?.summary?.median;
      add(`W1 ≤ ${TARGETS.w1UsPerStep} µs per step at S=${s}`, `${num(m)} µs`, m <= TARGETS.w1UsPerStep);
    }
    add(
      `W1 S=100 per-step cost within ${TARGETS.w1Growth}× of S=1`,
      `${num(ours.growth)}×`,
      ours.growth <= TARGETS.w1Growth,
    );
  }
  const w2 = results.w2?.rows.tinyagents?.summary?.median;
  if (w2 !== undefined) add("W2 ≥ 1,000,000 deltas/s", `${num(w2)}/s`, w2 >= TARGETS.w2DeltasPerSecond);
  const w3 = results.w3?.rows.tinyagents;
  if (w3 !== undefined) {
    add(
      `W3 ≤ ${TARGETS.w3TotalMs} ms total`,
      `${num(w3.totalMs?.median)} ms`,
      w3.totalMs?.median <= TARGETS.w3TotalMs,
    );
    add(
      "W3 ≤ 20 KB peak heap per in-flight run",
      kb(w3.inFlight?.median),
      w3.inFlight?.median <= TARGETS.w3InFlightBytes,
    );
    add("W3 heap flat across batches (< 1 MiB growth)", kb(w3.growth?.median), w3.flat);
  }
  const w4 = results.w4?.rows["@tinyagents/harness"];
  if (w4 !== undefined) {
    add(
      `W4 ≤ ${TARGETS.w4ImportMs} ms import`,
      `${num(w4.importMs?.median)} ms`,
      w4.importMs?.median <= TARGETS.w4ImportMs,
    );
    if (w4.closure !== undefined) {
      add(
        "W4 ≤ 3 MB installed closure (no optional peers)",
        mb(w4.closure.bytes),
        w4.closure.bytes <= TARGETS.w4ClosureBytes,
      );
    }
  }
  return out;
}

export function renderTargets(targets) {
  return `### Targets (ours, default settings)\n\n${table(
    ["target", "measured (median)", ""],
    targets.map((t) => [t.target, t.figure, t.met ? "met" : "**missed**"]),
  )}`;
}

export function renderReport(results, labels) {
  const parts = [renderEnvironment(results.env)];
  if (results.w1) parts.push(renderW1(results.w1, labels));
  if (results.w2) parts.push(renderW2(results.w2, labels));
  if (results.w3) parts.push(renderW3(results.w3, labels));
  if (results.w4) parts.push(renderW4(results.w4));
  parts.push(renderTargets(evaluateTargets(results)));
  parts.push(`Suite wall time: ${results.elapsedS.toFixed(0)} s.`);
  return `${parts.join("\n\n")}\n`;
}
