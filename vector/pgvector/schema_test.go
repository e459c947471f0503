package pgvector

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAtLeast(t *testing.T) {
	for v, want := range map[string]bool{"0.8.0": true, "0.8.7": true, "0.10.1": true, "1.0": true, "0.7.4": false, "0.5": false, "x": false, "": false} {
		require.Equal(t, want, atLeast(v, 0, 8), v)
	}
}
