import { TinyAgentsError, validationError } from "../errors/tinyagents-error.js";
import type { ContentBlock, ImageBlock } from "../message/content-block.js";
import { imageBlockFromUrl } from "./image-blocks.js";

/** A piece of text split at `[IMAGE:ref]` markers. */
export type ImageMarkerPart = { type: "text"; text: string } | { type: "image"; ref: string };

/** Turns a marker's reference into an image block (may load a file, look up an id, ...). */
export type ImageResolver = (ref: string) => ImageBlock | Promise<ImageBlock>;

const MARKER = /\[IMAGE:([^\]\n]+)\]/g;

/**
 * The marker that stands for an image in text input: `[IMAGE:<ref>]`. The reference may be a URL,
 * a `data:` URI, a path or an id — whatever the resolver understands. Throws a `validation` error
 * for a reference that is empty or contains `]` or a line break (it could not be parsed back).
 */
export function imageMarker(ref: string): string {
  if (typeof ref !== "string" || ref.trim() === "" || /[\]\n]/.test(ref)) {
    throw validationError(
      `imageMarker: the reference must be non-empty, without "]" or line breaks (got ${JSON.stringify(ref)})`,
      {
        field: "ref",
      },
    );
  }
  return `[IMAGE:${ref.trim()}]`;
}

/** True when `text` holds at least one `[IMAGE:ref]` marker. */
export function hasImageMarkers(text: string): boolean {
  MARKER.lastIndex = 0;
  return MARKER.test(text);
}

/**
 * Split text at its `[IMAGE:ref]` markers, in order. Text pieces are kept verbatim (empty ones
 * dropped); references are trimmed. Text without markers gives one text part.
 */
export function splitImageMarkers(text: string): ImageMarkerPart[] {
  const parts: ImageMarkerPart[] = [];
  let last = 0;
  MARKER.lastIndex = 0;
  for (let match = MARKER.exec(text); match !== null; match = MARKER.exec(text)) {
    const ref = match[1]!.trim();
    if (ref === "") continue;
    if (match.index > last) parts.push({ type: "text", text: text.slice(last, match.index) });
    parts.push({ type: "image", ref });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ type: "text", text: text.slice(last) });
  return parts;
}

/**
 * The default resolver: `http(s)` URLs and `data:` URIs (via `imageBlockFromUrl`, so data URIs
 * are validated against the default limits). Anything else (a path, an id) is a `validation`
 * error asking for a resolver that understands it.
 */
export function defaultImageResolver(ref: string): ImageBlock {
  if (/^(?:https?:|data:)/i.test(ref)) return imageBlockFromUrl(ref);
  throw validationError(
    `cannot resolve [IMAGE:${ref}]: only http(s) URLs and data: URIs are understood by default; pass a resolver that loads paths or ids`,
    { field: "ref", ref },
  );
}

/**
 * Content blocks for text with `[IMAGE:ref]` markers: text blocks around image blocks from
 * `resolver(ref)` (default {@link defaultImageResolver}), in order. At most `maxImages` markers
 * are allowed (default unlimited). A resolver failure becomes a `validation` error naming the
 * marker (its cause kept); a tinyagents error from the resolver is passed through as is.
 */
export async function resolveImageMarkers(
  text: string,
  resolver: ImageResolver = defaultImageResolver,
  options: { maxImages?: number } = {},
): Promise<ContentBlock[]> {
  const parts = splitImageMarkers(text);
  const images = parts.filter((part) => part.type === "image").length;
  if (options.maxImages !== undefined && images > options.maxImages) {
    throw validationError(
      `the text has ${images} [IMAGE:...] markers, more than the ${options.maxImages} allowed`,
      {
        field: "maxImages",
      },
    );
  }
  const blocks: ContentBlock[] = [];
  for (const part of parts) {
    if (part.type === "text") blocks.push({ type: "text", text: part.text });
    else blocks.push(await resolveOne(part.ref, resolver));
  }
  return blocks;
}

async function resolveOne(ref: string, resolver: ImageResolver): Promise<ImageBlock> {
  let block: ImageBlock;
  try {
    block = await resolver(ref);
  } catch (error) {
    if (TinyAgentsError.isInstance(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new TinyAgentsError("validation", `could not resolve [IMAGE:${ref}]: ${reason}`, {
      cause: error,
      details: { field: "ref", ref },
    });
  }
  if (typeof block !== "object" || block === null || block.type !== "image") {
    throw validationError(`the resolver for [IMAGE:${ref}] returned something that is not an image block`, {
      field: "ref",
      ref,
    });
  }
  return block;
}
