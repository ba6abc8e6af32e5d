import { describe, expect, it } from "vitest";
import { logsSayPortTaken } from "../src/testing/restate-server.js";

// startRestateServer retries with new ports when another process took one of them between our
// free-port check and the server's bind; it decides from the server's log lines.
describe("logsSayPortTaken", () => {
  it("recognises every way restate-server words a taken port", () => {
    expect(logsSayPortTaken("Error: Address already in use (os error 98)")).toBe(true);
    // The node-to-node (message fabric) port: a full run's restate-replay start failed on this line.
    expect(
      logsSayPortTaken(
        "Failed: [message-fabric-server] failed binding to address '127.0.0.1:43249': Address in use (os error 98)",
      ),
    ).toBe(true);
    expect(logsSayPortTaken("bind: AddrInUse")).toBe(true);
  });

  it("does not read other start failures as a taken port", () => {
    expect(logsSayPortTaken("Restate application failed error=permission denied (os error 13)")).toBe(false);
    expect(logsSayPortTaken("invalid configuration: unknown field `ingress`")).toBe(false);
  });
});
