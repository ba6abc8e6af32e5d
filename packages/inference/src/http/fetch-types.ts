/**
 * The `fetch` function the provider adapters call. Defaults to the platform `fetch`; tests and
 * applications inject their own (a proxy-aware fetch, a recorder, a fake).
 */
export type FetchLike = typeof fetch;
