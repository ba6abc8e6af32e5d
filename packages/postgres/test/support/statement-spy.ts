import type pg from "pg";

/** `pool.end()` resolves before its sockets close: the server's shutdown may still reach one. */
export function quietOnShutdown(pool: pg.Pool): void {
  pool.on("error", () => undefined); // an idle connection's error, passed on by the pool
  pool.on("connect", (client) => client.on("error", () => undefined));
}

/** Calls `onStatement` with the name (undefined when unnamed) and text of every query `pool` sends. */
export function spyStatements(
  pool: pg.Pool,
  onStatement: (name: string | undefined, text: string) => void,
): void {
  pool.on("acquire", (client) => {
    if ((client as { spied?: true }).spied) return;
    (client as { spied?: true }).spied = true;
    const query = client.query as (...a: unknown[]) => unknown;
    client.query = ((...a: unknown[]) => {
      const config = a[0] as string | { text: string; name?: string };
      if (typeof config === "string") onStatement(undefined, config);
      else onStatement(config.name, config.text);
      return query.apply(client, a);
    }) as typeof client.query;
  });
}
