// A client of loom's MCP server on the official TypeScript SDK, run by the
// Go tests of package mcp: it lists the tools, calls code_execution with
// progress, calls it with bad arguments, and prints what it got as JSON.
//
//   node client.mjs stdio COMMAND [ARG...]
//   node client.mjs http URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...args] = process.argv.slice(2);
const transport =
  mode === "http"
    ? new StreamableHTTPClientTransport(new URL(target))
    : new StdioClientTransport({ command: target, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "loom-test-client", version: "1.0.0" });
await client.connect(transport);

const out = {};
out.tools = (await client.listTools()).tools;
const progress = [];
out.call = await client.callTool(
  { name: "code_execution", arguments: { message: "Sum of the squares of 1, 2 and 3?" } },
  undefined,
  { onprogress: (p) => progress.push(p) },
);
out.progress = progress;
out.bad = await client.callTool({ name: "code_execution", arguments: { message: 42 } });
console.log(JSON.stringify(out));
if (mode === "http") await transport.terminateSession();
await client.close();
