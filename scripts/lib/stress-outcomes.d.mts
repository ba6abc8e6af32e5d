/** Outcomes of one repetition: `file > full name` -> Vitest status, and first failure messages. */
export interface Outcomes {
  byTest: Map<string, string>;
  messages: Map<string, string>;
}

/** The outcomes in a Vitest JSON report, keyed relative to `root`. */
export declare function outcomesOf(report: unknown, root: string): Outcomes;

/** The tests whose status changed between repetitions, and those that failed in all of them. */
export declare function compareOutcomes(repetitions: readonly Pick<Outcomes, "byTest">[]): {
  tests: number;
  changed: { key: string; statuses: string[] }[];
  alwaysFailed: string[];
};

/** One repetition's `vitest run` arguments: the project, a JSON report, one worker, then `vitestArgs`. */
export declare function repetitionArgs(
  vitest: string,
  project: string,
  reportFile: string,
  vitestArgs: readonly string[],
): string[];
