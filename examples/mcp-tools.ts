/**
 * MCP tools: start the reference "everything" MCP server over stdio, load its tools (names become
 * snake_case: get-sum -> get_sum), let the agent call one, then close the server.
 * Run: npx tsx examples/mcp-tools.ts   (needs the devDependency @modelcontextprotocol/server-everything)
 */
import { createRequire } from "node:module";
import { createAgent } from "@tinyagents/harness";
import { loadMcpTools } from "@tinyagents/harness/mcp";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { pickModel } from "./support/pick-model.js";

const server = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-everything/dist/index.js",
);
// Any stdio command works, e.g. { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
// or a Streamable HTTP server: { url: "http://127.0.0.1:3001/mcp" }.
const mcp = await loadMcpTools({ name: "everything", command: process.execPath, args: [server] });
try {
  console.log(
    `loaded ${mcp.tools.length} tools, e.g. ${[...mcp.names]
      .slice(0, 3)
      .map(([ours, o]) => `${ours} <- ${o.mcpName}`)
      .join(", ")}`,
  );
  const { model } = pickModel(
    () =>
      new ScriptedModel([
        { toolCalls: [{ name: "get_sum", arguments: { a: 19, b: 23 } }] },
        "19 + 23 = 42, says the MCP server.",
      ]),
  );
  const agent = createAgent({ model });
  mcp.attach(agent); // follows tools/list_changed too
  const run = await agent.run("Add 19 and 23 with the get_sum tool.");
  const result = run.messages.find((m) => m.role === "tool");
  console.log(`tool result: ${JSON.stringify(result?.content)}`);
  console.log(run.text);
} finally {
  await mcp.close(); // ends the server process
}
