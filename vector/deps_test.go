package vector_test

import (
	"testing"

	"github.com/loomwork/loom/internal/testkit"
)

// TestDependenciesPointOneWay checks that the store contract links neither
// a SQLite driver (vector/sqlite has it) nor the engine (vector/recall
// uses it).
func TestDependenciesPointOneWay(t *testing.T) {
	testkit.RequireNoDeps(t, "github.com/loomwork/loom/vector",
		"modernc.org/sqlite", "github.com/loomwork/loom/engine", "github.com/loomwork/loom/checkpoint")
}

// TestRecallLinksNoSQLite checks that the recall memory, which takes any
// store, does not bring the SQLite driver with it.
func TestRecallLinksNoSQLite(t *testing.T) {
	testkit.RequireNoDeps(t, "github.com/loomwork/loom/vector/recall", "modernc.org/sqlite", "github.com/loomwork/loom/vector/sqlite")
}
