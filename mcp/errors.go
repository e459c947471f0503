package mcp

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig reports a [Config] (or a server config of package
// mcp/server) that cannot work;
// the message names the field and how to fix it.
var ErrInvalidConfig = errors.New("mcp: invalid config")

// ErrConnection reports that the MCP server could not be reached, or that
// the connection broke during a call that was not retried because it may
// have reached the server and the tool is not idempotent.
var ErrConnection = errors.New("mcp: connection to the server failed")

// ErrClosed is returned by a [Toolset] used after Close.
var ErrClosed = errors.New("mcp: toolset closed")

// ToolError is a result the MCP server marked isError: the tool ran and
// failed. An AI agent sends its message back to the model.
type ToolError struct {
	Tool    string // the tool's name on the server
	Message string // the result's joined text
}

// Error returns the tool's message.
func (e *ToolError) Error() string {
	return fmt.Sprintf("mcp tool %s failed: %s", e.Tool, e.Message)
}
