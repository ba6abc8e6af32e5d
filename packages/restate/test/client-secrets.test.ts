import { inspect } from "node:util";
import { RestateAgentClient } from "@tinyagents/restate";
import { describe, expect, it } from "vitest";

const API_KEY = "restate-cloud-key-5a6b7c8d9e";
const QUERY_SECRET = "ingress-query-1a2b3c4d";

describe("RestateAgentClient never prints its credentials (issue 35)", () => {
  it("JSON.stringify, util.inspect and String show the ingress without its key header or ?key= query", () => {
    const client = new RestateAgentClient({
      ingressUrl: `http://127.0.0.1:9/?key=${QUERY_SECRET}`,
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    const printed = [JSON.stringify(client), inspect(client, { depth: 8 }), String(client)].join("\n");
    expect(printed).not.toContain(API_KEY);
    expect(printed).not.toContain(QUERY_SECRET);
    expect(JSON.stringify(client)).toContain("127.0.0.1:9");
  });
});
