export { assertJsonValue } from "./assert-json.js";
export { isJsonObject, type JsonObject, type JsonValue } from "./json-value.js";
