import { h } from "./dom.js";

/** One bar: its label (the bucket), value, and an optional part of it drawn in red (failures). */
export interface Bar {
  label: string;
  value: number;
  /** Part of `value` drawn over it in red (e.g. failed runs). */
  part?: number;
  /** The value as text (the table and the tooltip); default: the number. */
  text?: string;
  /** What a click on the bar does (a dashboard bar opens its runs). */
  onclick?: () => void;
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/**
 * A bar chart drawn in the page as inline SVG (no network, no library), with its numbers in a
 * table under a disclosure: the chart for the eye, the table for screen readers and exact values.
 */
export function barChart(options: {
  id: string;
  title: string;
  bars: readonly Bar[];
  /** Column headers of the table view. */
  columns: [string, string, string?];
  partLabel?: string;
}): HTMLElement {
  const { bars } = options;
  const width = 600;
  const height = 160;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const step = width / Math.max(1, bars.length);
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height + 18}`,
    class: "chart",
    role: "img",
    "aria-label": `${options.title}: ${bars.length} bars, highest ${bars.reduce((m, b) => (b.value > m.value ? b : m), bars[0] ?? { label: "", value: 0 }).text ?? max}`,
  });
  chart.appendChild(svg("line", { x1: 0, y1: height, x2: width, y2: height, class: "axis" }));
  for (const [i, b] of bars.entries()) {
    const barHeight = (b.value / max) * (height - 4);
    const x = i * step + step * 0.1;
    const w = Math.max(1, step * 0.8);
    const rect = svg("rect", { x, y: height - barHeight, width: w, height: barHeight, class: "bar-value" });
    rect.appendChild(svg("title", {}, `${b.label}: ${b.text ?? b.value}`));
    chart.appendChild(rect);
    if (b.onclick !== undefined) {
      rect.classList.add("clickable");
      rect.addEventListener("click", b.onclick);
    }
    if (b.part !== undefined && b.part > 0) {
      const partHeight = (b.part / max) * (height - 4);
      chart.appendChild(
        svg("rect", { x, y: height - partHeight, width: w, height: partHeight, class: "bar-part" }),
      );
    }
  }
  const first = bars[0];
  const last = bars.at(-1);
  if (first !== undefined && last !== undefined) {
    chart.appendChild(svg("text", { x: 0, y: height + 14, class: "tick" }, first.label));
    chart.appendChild(
      svg("text", { x: width, y: height + 14, class: "tick", "text-anchor": "end" }, last.label),
    );
  }
  const [labelCol, valueCol, partCol] = options.columns;
  return h(
    "figure",
    { class: "chart-figure", id: options.id },
    h("figcaption", null, options.title),
    chart,
    h(
      "details",
      null,
      h("summary", null, "Table"),
      h(
        "table",
        null,
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            [labelCol, valueCol, partCol]
              .filter((c) => c !== undefined)
              .map((c) => h("th", { scope: "col" }, c)),
          ),
        ),
        h(
          "tbody",
          null,
          bars.map((b) =>
            h(
              "tr",
              null,
              h(
                "td",
                null,
                b.onclick === undefined
                  ? b.label
                  : h("button", { type: "button", class: "link", onclick: b.onclick }, b.label),
              ),
              h("td", { class: "num" }, b.text ?? String(b.value)),
              partCol === undefined ? null : h("td", { class: "num" }, String(b.part ?? 0)),
            ),
          ),
        ),
      ),
    ),
  );
}
