package pgvector_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/pgvector"
	"github.com/loomwork/loom/vector/vectortest"
)

// TestIngestThenSearch feeds the store through vector.Ingester and finds a
// chunk by text, filtered by its source.
func TestIngestThenSearch(t *testing.T) {
	pool := testPool(t)
	ctx := context.Background()
	s, err := pgvector.Open(ctx, pgvector.Config{Pool: pool, Table: newTable(t, pool), Embedder: vectortest.Embedder(64)})
	require.NoError(t, err)
	defer s.Close()
	in, err := vector.NewIngester(s, vector.IngestConfig{ChunkSize: 80, BatchSize: 3})
	require.NoError(t, err)
	var text strings.Builder
	for _, line := range []string{
		"The scheduler parks a goroutine that blocks on a channel.",
		"Bread rises when the yeast ferments the sugar in the dough.",
		"A sync.Mutex guards the map against concurrent writers.",
		"The glacier carved the valley over many thousands of years.",
	} {
		text.WriteString(line + "\n")
	}
	n, err := in.Ingest(ctx, "notes.txt", text.String(), map[string]any{"lang": "en"})
	require.NoError(t, err)
	require.Greater(t, n, 1)
	_, err = in.Ingest(ctx, "other.txt", "The mutex guards nothing here.", nil)
	require.NoError(t, err)

	ms, err := s.Search(ctx, vector.Query{Text: "yeast ferments the dough", K: 1, Filter: vector.Eq(vector.MetaSource, "notes.txt")})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Contains(t, ms[0].Text, "yeast")
	require.Equal(t, "en", ms[0].Metadata["lang"])

	ms, err = s.Search(ctx, vector.Query{Text: "mutex guards", K: 10, Filter: vector.Eq(vector.MetaSource, "other.txt")})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Equal(t, vector.ChunkID("other.txt", 0), ms[0].ID)
}
