/** One line of a diff: kept, only in the left run, or only in the right run. */
export interface DiffLine {
  op: "same" | "removed" | "added";
  text: string;
}

/** A line diff by longest common subsequence (transcripts are short: O(n·m) is fine). */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const row = lcs[i] as number[];
      row[j] =
        a[i] === b[j] ? (lcs[i + 1]?.[j + 1] ?? 0) + 1 : Math.max(lcs[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: "same", text: a[i] as string });
      i++;
      j++;
    } else if ((lcs[i + 1]?.[j] ?? 0) >= (lcs[i]?.[j + 1] ?? 0))
      out.push({ op: "removed", text: a[i++] as string });
    else out.push({ op: "added", text: b[j++] as string });
  }
  while (i < n) out.push({ op: "removed", text: a[i++] as string });
  while (j < m) out.push({ op: "added", text: b[j++] as string });
  return out;
}
