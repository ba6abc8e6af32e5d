/** Where Ollama listens when nothing else is configured. */
export const DEFAULT_OLLAMA_BASE_URL = "http://127.0.0.1:11434";

/**
 * The base URL for an `OLLAMA_HOST`-style value, following Ollama's own rules: no scheme means
 * `http` with default port 11434; an explicit `http://` or `https://` without a port means 80 or
 * 443; a trailing slash is dropped; an empty or missing value gives
 * {@link DEFAULT_OLLAMA_BASE_URL}. Examples: `"0.0.0.0"` -> `http://0.0.0.0:11434`,
 * `"https://ollama.example.com"` -> `https://ollama.example.com:443`, `":8080"` ->
 * `http://127.0.0.1:8080`.
 */
export function ollamaBaseUrlFromHost(host: string | undefined): string {
  const value = host?.trim() ?? "";
  if (value === "") return DEFAULT_OLLAMA_BASE_URL;
  let scheme = "http";
  let rest = value;
  let defaultPort = "11434";
  const separator = value.indexOf("://");
  if (separator !== -1) {
    scheme = value.slice(0, separator).toLowerCase();
    rest = value.slice(separator + 3);
    if (scheme === "http") defaultPort = "80";
    else if (scheme === "https") defaultPort = "443";
  }
  const slash = rest.indexOf("/");
  const path = slash === -1 ? "" : rest.slice(slash).replace(/\/+$/, "");
  const hostPort = slash === -1 ? rest : rest.slice(0, slash);
  const portMatch = /^(.*):(\d*)$/.exec(hostPort);
  let hostname = portMatch === null ? hostPort : portMatch[1]!;
  let port = portMatch === null || portMatch[2] === "" ? defaultPort : portMatch[2]!;
  if (hostname.startsWith("[") && !hostname.endsWith("]")) {
    hostname = hostPort;
    port = defaultPort;
  }
  if (hostname === "") hostname = "127.0.0.1";
  return `${scheme}://${hostname}:${port}${path}`;
}
