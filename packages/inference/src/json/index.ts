export { isJsonObject, type JsonObject, type JsonValue } from "./json-value.js";
