package mcp

import (
	"testing"

	"github.com/loomwork/loom/internal/testkit"
)

// TestClientLinksNoServer: the client links neither the engine and the
// checkpoint stores nor the server (package mcp/server), which depend on
// the client and not the other way.
func TestClientLinksNoServer(t *testing.T) {
	testkit.RequireNoDeps(t, "github.com/loomwork/loom/mcp",
		"github.com/loomwork/loom/engine",
		"github.com/loomwork/loom/checkpoint",
		"github.com/loomwork/loom/mcp/server",
	)
}
