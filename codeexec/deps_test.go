package codeexec_test

import (
	"testing"

	"github.com/loomwork/loom/internal/testkit"
)

// TestLinksNoSQLite checks that the Coder→Sandbox application links no
// SQLite driver: its knowledge base takes any vector.Store, and the
// persistent one lives in vector/sqlite.
func TestLinksNoSQLite(t *testing.T) {
	testkit.RequireNoDeps(t, "github.com/loomwork/loom/codeexec", "modernc.org/sqlite", "github.com/loomwork/loom/vector/sqlite")
}
