package sqlite_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/loomwork/loom/model"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// renamed is an embedder under another name: its vectors do not compare
// with the original's.
type renamed struct {
	model.Embedder
	name string
}

func (r renamed) Name() string { return r.name }
