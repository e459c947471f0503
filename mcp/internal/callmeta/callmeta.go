// Package callmeta names the _meta keys of a tool call that carry a
// code-mode call's depth and its time left from loom's MCP client to
// loom's MCP server, so that a served coder whose snippets call the
// server that serves it stays under the caller's deadline and cannot
// recurse without bound (jstool.MaxCallDepth).
package callmeta

// The _meta keys: the caller's code-mode call depth, and the
// milliseconds left before its deadline.
const (
	Depth     = "loom/callDepth"
	TimeoutMs = "loom/timeoutMs"
)
