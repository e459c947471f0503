#!/usr/bin/env bash
# MCP test components for the mcp package: Node.js, then, pinned in
# .ci/mcp/package-lock.json, @modelcontextprotocol/server-everything, the
# official TypeScript SDK, the MCP conformance suite
# (@modelcontextprotocol/conformance) and Node 22 (npm's node@22) that the
# suite needs. Node 22 lands in .ci/mcp/node_modules/.bin/node and runs the
# suite only (mcp's conformance tests use it for server and client
# scenarios); the other tests use the system node. Sourced by .ci/run
# before the tests.
step "MCP test servers and conformance suite (npm ci in .ci/mcp)"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
node --version
(cd .ci/mcp && npm ci --no-audit --no-fund)
echo "conformance suite on node $(.ci/mcp/node_modules/.bin/node --version)"
