export { base64ByteLength, decodeBase64, encodeBase64 } from "./base64.js";
export { type DataUri, type DecodedDataUri, decodeDataUri, encodeDataUri, parseDataUri } from "./data-uri.js";
export {
  type ImageBlockOptions,
  imageBlockFromBase64,
  imageBlockFromBytes,
  imageBlockFromDataUri,
  imageBlockFromUrl,
  imageBlockToUrl,
} from "./image-blocks.js";
export {
  defaultImageResolver,
  hasImageMarkers,
  type ImageMarkerPart,
  type ImageResolver,
  imageMarker,
  resolveImageMarkers,
  splitImageMarkers,
} from "./image-markers.js";
export {
  checkByteLimit,
  checkMediaLimits,
  DEFAULT_IMAGE_LIMITS,
  formatBytes,
  type MediaLimits,
} from "./media-limits.js";
export { detectMimeType, IMAGE_MIME_TYPES, normalizeMimeType } from "./mime.js";
