import type { EvalProgress } from "@tinyagents/harness/evals";
import type { CliOutput } from "../core/cli-io.js";

const WIDTH = 24;

/**
 * Progress of a running eval: on a terminal one redrawn bar (`[######------] 6/12 ✓5 ✗1`); when
 * not a TTY (CI logs) one plain line per finished trial.
 */
export class EvalProgressRenderer {
  private drawn = false;

  constructor(private readonly out: CliOutput) {}

  readonly onProgress = (progress: EvalProgress): void => {
    if (this.out.isTTY === true) {
      const filled = progress.total === 0 ? WIDTH : Math.round((progress.done / progress.total) * WIDTH);
      const bar = `${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}`;
      this.out.write(
        `\r[${bar}] ${progress.done}/${progress.total}  pass ${progress.passed}  fail ${progress.failed}`,
      );
      this.drawn = true;
      return;
    }
    const trial = progress.trial;
    if (trial === undefined) {
      this.out.write(`eval ${progress.evalRunId}: ${progress.total} run(s)\n`);
      return;
    }
    const verdict = trial.passed ? "pass" : trial.error?.code === "cancelled" ? "cancelled" : "FAIL";
    const repeat = trial.trial > 0 ? ` #${trial.trial + 1}` : "";
    this.out.write(
      `[${progress.done}/${progress.total}] ${verdict} ${trial.caseId}${repeat} (${Math.round(trial.latencyMs)} ms, ${trial.runId})\n`,
    );
  };

  /** End the bar's line. */
  finish(): void {
    if (this.drawn) this.out.write("\n");
    this.drawn = false;
  }
}
