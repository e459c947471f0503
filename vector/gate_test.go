package vector_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
)

func TestGate(t *testing.T) {
	var g vector.Gate
	require.NoError(t, g.Enter("store"))

	closed := make(chan bool)
	go func() { closed <- g.Close() }()
	// Close cannot return while a call is in flight.
	select {
	case <-closed:
		t.Fatal("Close returned with a call in flight")
	default:
	}
	g.Exit()
	require.True(t, <-closed, "the first Close closes the gate")
	require.False(t, g.Close(), "a second Close reports the gate was already closed")

	err := g.Enter("chroma")
	require.ErrorIs(t, err, vector.ErrClosed)
	require.EqualError(t, err, "chroma: vector store closed")
}
