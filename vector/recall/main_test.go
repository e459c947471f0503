package recall_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/vectortest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// hashMemory is an in-memory store with the offline hash embedder.
func hashMemory(t *testing.T) *vector.Memory { return vectortest.Memory(t, 256) }
