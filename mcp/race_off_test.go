//go:build !race

package mcp

// maxAllocsOverRaw bounds what loom's client adds per tool call, in
// allocations, to the go-sdk client making the same call with a progress
// token: 6 (bench/README.md, "MCP allocations per call"), and a little room.
const maxAllocsOverRaw = 8
