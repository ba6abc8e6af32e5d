import type { DetailPage } from "../../src/ui/view-types.js";
import { h } from "./dom.js";
import { count } from "./format.js";

/** What {@link pagedList} draws and how it fetches more. */
export interface PagedListOptions<T> {
  /** The list element the items go into. */
  list: HTMLElement;
  /** The items the server sent with the run (its first page). */
  first: readonly T[];
  /** How many items there are in all. */
  total: number;
  /** Fetch the page starting at `from`. */
  load: (from: number) => Promise<DetailPage<T>>;
  /** One item's element. */
  item: (value: T) => Node;
  /** What the items are, for the buttons: `timeline rows`. */
  noun: string;
  /** At most this many items in the page at once (default {@link MAX_ROWS}). */
  maxRows?: number;
}

/** Items a long list keeps in the page at most: the DOM stays this size however far one reads. */
export const MAX_ROWS = 500;

/** A page of items as drawn: where it starts and its elements. */
interface DrawnPage {
  from: number;
  nodes: Node[];
}

/**
 * A long list drawn a page at a time, in a window of at most `maxRows` items: the first page at
 * once; the next when "Show more" is pressed or scrolls into view; past `maxRows` the earliest
 * pages leave the page and "Show earlier" brings them back (and drops the latest). A
 * 10,000-record run costs the page what the reader looks at, not 10,000 rows. Returns the list
 * between its two buttons.
 */
export function pagedList<T>(options: PagedListOptions<T>): HTMLElement {
  const { list, total, load, item, noun } = options;
  const maxRows = options.maxRows ?? MAX_ROWS;
  const pageSize = Math.max(1, options.first.length);
  const pages: DrawnPage[] = [];
  const drawn = () => pages.reduce((n, p) => n + p.nodes.length, 0);
  const start = () => pages[0]?.from ?? 0;
  const end = () => {
    const last = pages.at(-1);
    return last === undefined ? 0 : last.from + last.nodes.length;
  };
  const draw = (from: number, items: readonly T[]): DrawnPage => ({ from, nodes: items.map(item) });
  const remove = (page: DrawnPage | undefined) => {
    for (const node of page?.nodes ?? []) list.removeChild(node);
  };

  let loading = false;
  const earlier = h("button", {
    type: "button",
    class: "more earlier",
    onclick: () => void run(showEarlier),
  });
  const later = h("button", { type: "button", class: "more", onclick: () => void run(showLater) });
  const label = () => {
    const shown = `${count(start() + 1)}–${count(end())} of ${count(total)} shown`;
    earlier.hidden = start() === 0;
    earlier.textContent = `Show earlier ${noun} (${shown})`;
    later.hidden = end() >= total;
    later.textContent = `Show more ${noun} (${shown})`;
  };

  async function showLater(): Promise<void> {
    const page = await load(end());
    if (page.items.length === 0) return;
    const drawnPage = draw(page.from, page.items);
    for (const node of drawnPage.nodes) list.appendChild(node);
    pages.push(drawnPage);
    while (drawn() > maxRows && pages.length > 1) remove(pages.shift());
  }

  async function showEarlier(): Promise<void> {
    const from = Math.max(0, start() - pageSize);
    const page = await load(from);
    const items = page.items.slice(0, start() - from);
    if (items.length === 0) return;
    const drawnPage = draw(from, items);
    const before = list.firstChild;
    for (const node of drawnPage.nodes) list.insertBefore(node, before);
    pages.unshift(drawnPage);
    while (drawn() > maxRows && pages.length > 1) remove(pages.pop());
  }

  async function run(step: () => Promise<void>): Promise<void> {
    if (loading) return;
    loading = true;
    earlier.disabled = true;
    later.disabled = true;
    try {
      await step();
      label();
    } catch (e) {
      later.textContent = `Could not load more ${noun}: ${(e as Error).message} (retry)`;
    } finally {
      loading = false;
      earlier.disabled = false;
      later.disabled = false;
    }
  }

  const first = draw(0, options.first);
  for (const node of first.nodes) list.appendChild(node);
  pages.push(first);
  label();
  if (typeof IntersectionObserver === "function" && end() < total) {
    // Reading down loads the next page by itself (the button is the keyboard's way).
    new IntersectionObserver((seen) => {
      if (seen.some((e) => e.isIntersecting) && !later.hidden) void run(showLater);
    }).observe(later);
  }
  return h("div", { class: "paged" }, earlier, list, later);
}
