// Markdown rendering of the suite's aggregated results, and the issue's targets for ours.

/**
 * The targets. Issue 21: ratios to the hand-written floor of the same run, medians. Issue 40:
 * every journaled wiring as a ratio to its raw-driver storage floor (`sqlite-floor`,
 * `postgres-floor`) of the same run; W2 with SQLite as a share of the in-memory front door;
 * peak heap per in-flight run in KB.
 */
export const TARGETS = {
  w1FloorRatio: 5,
  w1FloorRatioSteps: [10, 100],
  w1Growth: 1.5,
  w2CostPerDeltaRatio: 1.5,
  w3TotalRatio: 3,
  w3PeakRatio: 2,
  w3FlatBytes: 1024 * 1024,
  sqliteFloorRatio: { 1: 1.5, 10: 1.2, 100: 1.2 },
  productionFloorRatio: 1.5,
  postgresFloorRatio: 2,
  sqliteW2Share: 0.7,
  sqliteW3Ratio: 3,
  inMemoryPeakKb: 12,
  sqlitePeakKb: 16,
  w4ImportMs: 40,
  w4ClosureBytes: 3_000_000,
};

/** The journaled wirings held to a storage-floor target: [adapter, label, target at S]. */
export const JOURNALED = [
  ["tinyagents-sqlite", "SQLite (CLI wiring)", (s) => TARGETS.sqliteFloorRatio[s] ?? 1.2],
  ["tinyagents-production", "SQLite + retry, budget, usage (W5)", () => TARGETS.productionFloorRatio],
  ["tinyagents-postgres", "Postgres journal & status", () => TARGETS.postgresFloorRatio],
];

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

export function renderEnvironment(env, phases = {}) {
  const pkgs = Object.entries(env.packages)
    .map(([name, version]) => `${name} ${version ?? "?"}`)
    .join(", ");
  return [
    `- machine: ${env.nproc} × ${env.cpu} (${env.platform}), load average at start ${env.loadavg.join(" / ")}`,
    `- Node ${env.node}; commit ${env.commit ?? "?"}; ${env.date}`,
    `- packages: ${pkgs}`,
    ...(Object.keys(phases).length === 0
      ? []
      : [
          `- per workload (load average 1 / 5 / 15 min at its start, wall time): ${Object.entries(phases)
            .map(
              ([name, p]) =>
                `${name.toUpperCase()} ${p.loadavgAtStart.join(" / ")}, ${p.elapsedS.toFixed(0)} s`,
            )
            .join("; ")}`,
        ]),
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

/** Issue 40: each journaled wiring against its storage floor and the in-memory front door. */
export function renderJournaled(w1, labels) {
  const rows = [];
  for (const [name, row] of Object.entries(w1.rows)) {
    if (!w1.steps.some((s) => row[s]?.writes !== undefined)) continue;
    for (const s of w1.steps) {
      const cell = row[s];
      const w = cell?.writes;
      const per = (v, digits = 1) => (v === undefined ? "n/a" : v.toFixed(digits));
      rows.push([
        labels[name],
        `S=${s}`,
        num(cell?.summary?.median),
        cell?.floorRatio === undefined ? "—" : times(cell.floorRatio),
        cell?.sameProcessFloorRatio === undefined ? "—" : times(cell.sameProcessFloorRatio),
        cell?.inMemoryRatio === undefined ? "n/a" : times(cell.inMemoryRatio),
        per(w?.recordsPerStep),
        w === undefined ? "n/a" : num(w.bytesPerStep),
        per(w?.statusWritesPerStep, 2),
        per(w?.commitsPerStep, 2),
        per(w?.roundTripsPerStep),
      ]);
    }
  }
  const head = [
    "wiring",
    "S",
    "µs/step",
    "× its storage floor",
    "× its floor, same process",
    "× in-memory tinyagents",
    "journal records / step",
    "bytes / step",
    "status writes / step",
    "commits / step",
    "round trips / step (Postgres)",
  ];
  return `### Journaled runs against their storage floor (W1, medians of this run; "same process": the wiring and its floor in one process, alternating rounds; writes counted at the driver on one run)\n\n${table(head, rows)}`;
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
    row.timedOut ? `${labels[name]} — a process did not finish within the 180 s time box` : labels[name],
    `${range(row.totalMs)}${ratio(row.totalRatio)}`,
    `${range(row.peak, kb)}${ratio(row.peakRatio)}`,
    `${range(row.inFlight, kb)}${ratio(row.inFlightRatio)}`,
    range(row.kept, kb),
    `${range(row.growth, kb)} ${row.flat ? "(flat)" : "(GROWS)"}`,
  ]);
  const head = [
    "adapter",
    "total ms",
    "sampled peak heap per in-flight run",
    "live heap per in-flight run (after GC)",
    "heap kept per result",
    `heap growth over ${w3.batches} batches`,
  ];
  return `### W3 concurrency: ${w3.runs.toLocaleString("en-US")} concurrent runs × ${w3.steps} steps (median [min–max] over ${w3.procs} processes · × hand-written)\n\n${table(head, rows)}`;
}

export function renderW4(w4) {
  const rows = Object.entries(w4.rows).map(([name, row]) => [
    name
      .split(" + ")
      .map((n) => `\`${n}\``)
      .join(" + "),
    range(row.importMs),
    row.closure === undefined ? "n/a" : mb(row.closure.bytes),
    row.closure === undefined ? "n/a" : String(row.closure.packages.length),
  ]);
  return `### W4 cold start: import in a fresh process (ms, median [min–max] over ${w4.procs} processes) and installed dependency closure\n\n${table(["package", "import ms", "installed closure", "packages"], rows)}`;
}

const times = (r) => (r === undefined || !Number.isFinite(r) ? "n/a" : `${r.toFixed(r >= 10 ? 0 : 2)}×`);

/** The issue's targets for ours, with the measured figure and met/missed. */
export function evaluateTargets(results) {
  const out = [];
  const add = (target, figure, met) => out.push({ target, figure, met: met === true });
  const w1 = results.w1?.rows;
  const ours = w1?.tinyagents;
  if (ours !== undefined) {
    for (const s of TARGETS.w1FloorRatioSteps) {
      const r = ours[s]?.ratio;
      add(
        `W1 in memory ≤ ${TARGETS.w1FloorRatio}× the hand-written loop at S=${s}`,
        `${times(r)} (${num(ours[s]?.summary?.median)} µs/step)`,
        r <= TARGETS.w1FloorRatio,
      );
    }
    add(
      `W1 linear: S=100 per-step cost within ${TARGETS.w1Growth}× of S=1`,
      times(ours.growth),
      ours.growth <= TARGETS.w1Growth,
    );
  }
  const w2 = results.w2?.rows;
  if (w2?.tinyagents !== undefined) {
    const r = w2.tinyagents.ratio;
    add(
      `W2 in memory: cost per delta ≤ ${TARGETS.w2CostPerDeltaRatio}× the hand-written loop`,
      `${times(r)} (${num(w2.tinyagents.summary?.median)} deltas/s)`,
      r <= TARGETS.w2CostPerDeltaRatio,
    );
  }
  const w3 = results.w3?.rows;
  if (w3?.tinyagents !== undefined) {
    const row = w3.tinyagents;
    add(
      `W3 in memory: total ≤ ${TARGETS.w3TotalRatio}× the hand-written loop`,
      `${times(row.totalRatio)} (${num(row.totalMs?.median)} ms)`,
      row.totalRatio <= TARGETS.w3TotalRatio,
    );
    add(
      `W3 in memory: sampled peak heap per in-flight run ≤ ${TARGETS.w3PeakRatio}× the hand-written loop`,
      `${times(row.peakRatio)} (${kb(row.peak?.median)}; live ${kb(row.inFlight?.median)})`,
      row.peakRatio <= TARGETS.w3PeakRatio,
    );
    add(
      `W3 in memory: sampled peak heap per in-flight run ≤ ${TARGETS.inMemoryPeakKb} KB`,
      kb(row.peak?.median),
      row.peak?.median <= TARGETS.inMemoryPeakKb * 1024,
    );
    add("W3 heap flat across batches (< 1 MiB growth)", kb(row.growth?.median), row.flat);
  }
  // Issue 40: every journaled wiring against its raw-driver storage floor of the same run.
  // Judged on the same-process ratio when the run has it (steadier), else on the separate one.
  for (const [adapter, label, target] of JOURNALED) {
    const row = w1?.[adapter];
    if (row === undefined) continue;
    for (const s of results.w1.steps) {
      const same = row[s]?.sameProcessFloorRatio;
      const r = same ?? row[s]?.floorRatio;
      add(
        `${label}: W1 ≤ ${target(s)}× its storage floor at S=${s}`,
        `${times(r)}${same === undefined ? "" : " same process"} (separate processes ${times(row[s]?.floorRatio)}, ${num(row[s]?.summary?.median)} µs/step; ${times(row[s]?.inMemoryRatio)} in-memory)`,
        r <= target(s),
      );
    }
  }
  const sqliteW2 = w2?.["tinyagents-sqlite"];
  if (sqliteW2 !== undefined && w2?.tinyagents !== undefined) {
    const share = sqliteW2.summary?.median / w2.tinyagents.summary?.median;
    add(
      `SQLite (CLI wiring): W2 ≥ ${TARGETS.sqliteW2Share * 100}% of the in-memory front door's deltas/s`,
      `${Number.isFinite(share) ? (share * 100).toFixed(0) : "n/a"}% (${num(sqliteW2.summary?.median)} deltas/s)`,
      share >= TARGETS.sqliteW2Share,
    );
  }
  const sqliteW3 = w3?.["tinyagents-sqlite"];
  if (sqliteW3 !== undefined) {
    add(
      `SQLite (CLI wiring): W3 sampled peak heap per in-flight run ≤ ${TARGETS.sqlitePeakKb} KB`,
      kb(sqliteW3.peak?.median),
      sqliteW3.peak?.median <= TARGETS.sqlitePeakKb * 1024,
    );
    if (w3?.tinyagents !== undefined) {
      const r = sqliteW3.totalMs?.median / w3.tinyagents.totalMs?.median;
      add(
        `SQLite (CLI wiring): W3 total ≤ ${TARGETS.sqliteW3Ratio}× the in-memory front door`,
        `${times(r)} (${num(sqliteW3.totalMs?.median)} ms)`,
        r <= TARGETS.sqliteW3Ratio,
      );
    }
  }
  const w4 = results.w4?.rows;
  for (const key of ["@tinyagents/harness", "@tinyagents/harness + zod"]) {
    const row = w4?.[key];
    if (row === undefined) continue;
    add(
      `W4 import \`${key}\` ≤ ${TARGETS.w4ImportMs} ms`,
      `${num(row.importMs?.median)} ms`,
      row.importMs?.median <= TARGETS.w4ImportMs,
    );
  }
  const harness = w4?.["@tinyagents/harness"];
  if (harness?.closure !== undefined) {
    add(
      "W4 installed closure ≤ 3 MB (packed tarballs' installed bytes, no optional peers)",
      mb(harness.closure.bytes),
      harness.closure.bytes <= TARGETS.w4ClosureBytes,
    );
  }
  return out;
}

export function renderTargets(targets) {
  return `### Targets (issues 21 and 40; ours at default settings; ratios of medians of this run)\n\n${table(
    ["target", "measured (median)", ""],
    targets.map((t) => [t.target, t.figure, t.met ? "met" : "**missed**"]),
  )}`;
}

export function renderReport(results, labels) {
  const parts = [renderEnvironment(results.env, results.phases)];
  if (results.w1) parts.push(renderW1(results.w1, labels), renderJournaled(results.w1, labels));
  if (results.w2) parts.push(renderW2(results.w2, labels));
  if (results.w3) parts.push(renderW3(results.w3, labels));
  if (results.w4) parts.push(renderW4(results.w4));
  parts.push(renderTargets(evaluateTargets(results)));
  parts.push(`Suite wall time: ${results.elapsedS.toFixed(0)} s.`);
  return `${parts.join("\n\n")}\n`;
}
