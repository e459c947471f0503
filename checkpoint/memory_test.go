package checkpoint_test

import (
	"testing"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/checkpointtest"
	"github.com/stretchr/testify/require"
)

func TestMemory(t *testing.T) {
	checkpointtest.Run(t, func(t *testing.T) checkpoint.Store {
		s := checkpoint.NewMemory()
		t.Cleanup(func() { require.NoError(t, s.Close()) })
		return s
	})
}

func TestMemorySessions(t *testing.T) {
	checkpointtest.RunSessions(t, func(t *testing.T) checkpoint.SessionStore {
		s := checkpoint.NewMemorySessions(checkpoint.MemorySessionsConfig{})
		t.Cleanup(func() { require.NoError(t, s.Close()) })
		return s
	})
}
