const encoder = new TextEncoder();

/**
 * Split `items` into consecutive groups whose JSON size stays under `maxBytes` (UTF-8), keeping
 * order. An item larger than `maxBytes` on its own gets a group of its own (the server decides).
 */
export function chunkBySize<T>(items: readonly T[], maxBytes: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const itemSize = encoder.encode(JSON.stringify(item)).length + 1;
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
