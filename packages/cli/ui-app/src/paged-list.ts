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
  /** What the items are, for the button: `timeline rows`. */
  noun: string;
}

/**
 * A long list drawn a page at a time: the first page at once, the next when its "Show more"
 * button is pressed or scrolls into view. A 10,000-record run costs the page what the reader
 * looks at, not 10,000 rows up front. Returns the button (or `null` when everything is shown).
 */
export function pagedList<T>(options: PagedListOptions<T>): HTMLElement | null {
  const { list, total, load, item, noun } = options;
  let shown = 0;
  const add = (items: readonly T[]) => {
    const fragment = document.createDocumentFragment();
    for (const value of items) fragment.appendChild(item(value));
    list.appendChild(fragment);
    shown += items.length;
  };
  add(options.first);
  if (shown >= total) return null;
  let loading = false;
  const button = h("button", { type: "button", class: "more", onclick: () => void more() });
  const label = () => {
    button.textContent = `Show more ${noun} (${count(shown)} of ${count(total)} shown)`;
  };
  label();
  const observer =
    typeof IntersectionObserver === "function"
      ? new IntersectionObserver((seen) => {
          if (seen.some((e) => e.isIntersecting)) void more();
        })
      : undefined;
  async function more(): Promise<void> {
    if (loading || shown >= total) return;
    loading = true;
    button.disabled = true;
    try {
      const page = await load(shown);
      add(page.items);
      if (shown >= total || page.items.length === 0) {
        observer?.disconnect();
        button.remove();
        return;
      }
      label();
    } catch (e) {
      button.textContent = `Could not load more ${noun}: ${(e as Error).message} (retry)`;
    } finally {
      loading = false;
      button.disabled = false;
    }
  }
  observer?.observe(button);
  return button;
}
