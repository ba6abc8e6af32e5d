/**
 * The app's only way to build DOM: elements and text nodes, never HTML strings. Every model and
 * tool string reaches the page as a text node, so a hostile result shows as text.
 */
export type Child = Node | string | number | null | undefined | false | readonly Child[];
type Attr = string | number | boolean | undefined | null | ((event: Event) => void);

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Readonly<Record<string, Attr>> | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") el.addEventListener(key.slice(2).toLowerCase(), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

/** Append children (nested arrays flattened, empty values skipped, strings as text nodes). */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace the content of `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** Tell screen readers something changed. */
export function announce(text: string): void {
  const region = document.getElementById("announce");
  if (region !== null) region.textContent = text;
}
