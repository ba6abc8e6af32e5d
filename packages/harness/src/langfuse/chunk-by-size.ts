const encoder = new TextEncoder();

/** UTF-8 size of an item's JSON form. */
const jsonSize = (item: unknown): number => encoder.encode(JSON.stringify(item)).length;

/**
 * Split `items` into consecutive groups whose size (by default the UTF-8 size of their JSON)
 * stays under `maxBytes`, keeping order. An item larger than `maxBytes` on its own gets a group
 * of its own (the server decides).
 */
export function chunkBySize<T>(
  items: readonly T[],
  maxBytes: number,
  sizeOf: (item: T) => number = jsonSize,
): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const itemSize = sizeOf(item) + 1;
    if (current.length > 0 && size + itemSize > maxBytes) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += itemSize;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
