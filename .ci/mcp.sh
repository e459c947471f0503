#!/usr/bin/env bash
# MCP test components for the mcp package: Node.js, then the pinned
# @modelcontextprotocol/server-everything and the official TypeScript SDK
# from .ci/mcp/package-lock.json. Sourced by .ci/run before the tests.
step "MCP test servers (npm ci in .ci/mcp)"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
node --version
(cd .ci/mcp && npm ci --no-audit --no-fund)
