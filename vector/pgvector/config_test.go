package pgvector_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector/pgvector"
	"github.com/loomwork/loom/vector/vectortest"
)

func TestOpenRejectsBadConfig(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		cfg  pgvector.Config
		want string
	}{
		{"no connection", pgvector.Config{Dimensions: 3}, "DSN or Pool"},
		{"bad table", pgvector.Config{DSN: "postgres://x", Table: "Robert'); DROP", Dimensions: 3}, "Table"},
		{"negative dimensions", pgvector.Config{DSN: "postgres://x", Dimensions: -1}, "Dimensions is -1"},
		{"no dimensions", pgvector.Config{DSN: "postgres://x"}, "no Embedder"},
		{"ef search", pgvector.Config{DSN: "postgres://x", Dimensions: 3, EFSearch: 5000}, "EFSearch"},
		{"too wide", pgvector.Config{DSN: "postgres://x", Dimensions: 20000}, "16000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pgvector.Open(ctx, tc.cfg)
			require.ErrorIs(t, err, pgvector.ErrConfig)
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := pgvector.Open(ctx, pgvector.Config{DSN: "postgres://x", Dimensions: 3, Embedder: vectortest.Embedder(4)})
	require.ErrorContains(t, err, "4")
}
