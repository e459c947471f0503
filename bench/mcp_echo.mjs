// The official TypeScript MCP client calling server-everything's echo tool
// over stdio, one call at a time and with 8 in flight: the TypeScript side
// of mcp's BenchmarkEverythingEcho (see bench/README.md). It uses the
// packages .ci/mcp.sh installs from .ci/mcp/package-lock.json.
//
//   node bench/mcp_echo.mjs [CALLS]
//
// It prints one JSON line per case: calls, seconds, calls per second, and
// the client process's CPU time per call in microseconds.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, ".ci", "mcp", "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const server = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const calls = Number(process.argv[2] ?? 2000);

async function measure(inflight) {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: "node", args: [server, "stdio"], stderr: "ignore" }));
  const call = async () => {
    const res = await client.callTool({ name: "echo", arguments: { message: "hello" } });
    if (res.isError) throw new Error(`echo failed: ${JSON.stringify(res.content)}`);
  };
  for (let i = 0; i < 50; i++) await call(); // warm up, as the Go benchmark does
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (next++ < calls) await call();
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  await client.close();
  return {
    client: "typescript",
    inflight,
    calls,
    seconds: +seconds.toFixed(3),
    callsPerSec: Math.round(calls / seconds),
    cpuMicrosPerCall: Math.round((cpu.user + cpu.system) / calls),
  };
}

for (const inflight of [1, 8]) console.log(JSON.stringify(await measure(inflight)));
