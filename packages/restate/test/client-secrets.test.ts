import { RestateAgentClient } from "@tinyagents/restate";
import { describe, expect, it } from "vitest";
import {
  expectNoSecrets as expectNoneOf,
  printed,
  printedError,
  rejectionOf,
} from "../../harness/test/support/printed-secrets.js";

const API_KEY = "restate-cloud-key-5a6b7c8d9e";
const QUERY_SECRET = "ingress-query-1a2b3c4d";
const expectNoSecrets = (text: string) => expectNoneOf(text, [API_KEY, QUERY_SECRET]);

// Nothing listens on port 9 of the loopback: every call fails at once (connection refused).
const client = () =>
  new RestateAgentClient({
    ingressUrl: `http://127.0.0.1:9/?key=${QUERY_SECRET}`,
    headers: { authorization: `Bearer ${API_KEY}` },
  });

describe("RestateAgentClient never prints its credentials (issue 35)", () => {
  it("JSON.stringify, util.inspect and String show the ingress without its key header or ?key= query", () => {
    const restate = client();
    expectNoSecrets(printed(restate));
    expect(JSON.stringify(restate)).toContain("127.0.0.1:9");
  });

  it("a failed call: the error, its text and its cause chain are credential-free", async () => {
    const error = await rejectionOf(client().status("agent", "run-1"));
    expect(error).toBeDefined();
    expectNoSecrets(printedError(error));
  });
});
