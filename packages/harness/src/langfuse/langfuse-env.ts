import { validationError } from "@tinyagents/inference";

/** Where and how `LangfuseClient.fromEnv` connects. */
export type LangfuseEnvConfig =
  | { mode: "proxy"; url: string; token: string }
  | { mode: "direct"; baseUrl: string; publicKey: string; secretKey: string };

/** The environment variables `LangfuseClient.fromEnv` reads, in order of preference. */
export const LANGFUSE_ENV = {
  proxyUrl: "TINYHUMANS_LANGFUSE_PROXY_URL",
  proxyToken: "TINYHUMANS_AUTH_TOKEN",
  baseUrl: "LANGFUSE_BASE_URL",
  publicKey: "LANGFUSE_PUBLIC_KEY",
  secretKey: "LANGFUSE_SECRET_KEY",
} as const;

/**
 * Read the Langfuse connection from environment variables: the proxy when
 * `TINYHUMANS_LANGFUSE_PROXY_URL` is set (then `TINYHUMANS_AUTH_TOKEN` is required), else direct
 * with `LANGFUSE_BASE_URL`, `LANGFUSE_PUBLIC_KEY` and `LANGFUSE_SECRET_KEY` (no default URL: the
 * Langfuse region or host must be chosen explicitly). Blank values count as missing.
 *
 * @throws TinyAgentsError `validation` naming the missing variables (never their values).
 */
export function langfuseConfigFromEnv(env: Readonly<Record<string, string | undefined>>): LangfuseEnvConfig {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const url = read(LANGFUSE_ENV.proxyUrl);
  if (url !== undefined) {
    const token = read(LANGFUSE_ENV.proxyToken);
    if (token === undefined) {
      throw validationError(
        `${LANGFUSE_ENV.proxyUrl} is set but ${LANGFUSE_ENV.proxyToken} is missing: set the bearer token for the Langfuse proxy, or unset ${LANGFUSE_ENV.proxyUrl} to talk to Langfuse directly.`,
        { missing: [LANGFUSE_ENV.proxyToken] },
      );
    }
    return { mode: "proxy", url, token };
  }
  const baseUrl = read(LANGFUSE_ENV.baseUrl);
  const publicKey = read(LANGFUSE_ENV.publicKey);
  const secretKey = read(LANGFUSE_ENV.secretKey);
  if (baseUrl === undefined || publicKey === undefined || secretKey === undefined) {
    const missing: string[] = [];
    if (baseUrl === undefined) missing.push(LANGFUSE_ENV.baseUrl);
    if (publicKey === undefined) missing.push(LANGFUSE_ENV.publicKey);
    if (secretKey === undefined) missing.push(LANGFUSE_ENV.secretKey);
    throw validationError(
      `Langfuse is not configured: missing ${missing.join(", ")}. Set ${LANGFUSE_ENV.baseUrl}, ${LANGFUSE_ENV.publicKey} and ${LANGFUSE_ENV.secretKey} (direct), or ${LANGFUSE_ENV.proxyUrl} and ${LANGFUSE_ENV.proxyToken} (proxy).`,
      { missing },
    );
  }
  return { mode: "direct", baseUrl, publicKey, secretKey };
}
