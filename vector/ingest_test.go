package vector_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/vectortest"
)

func hashMemory(t *testing.T) *vector.Memory { return vectortest.Memory(t, 256) }

var docsFS = fstest.MapFS{
	"go/channels.md":   {Data: []byte("Channels connect goroutines. A buffered channel holds values until a receiver takes them.\n\nClosing a channel tells receivers no more values will come.")},
	"go/errors.md":     {Data: []byte("Wrap errors with fmt.Errorf and the %w verb, then test them with errors.Is and errors.As.")},
	"cooking/bread.md": {Data: []byte("Knead the dough for ten minutes, let it rise for an hour, then bake it at 220 degrees.")},
	"logo.png":         {Data: []byte{0x89, 'P', 'N', 'G', 0, 0, 1}},
	"notes/long.txt":   {Data: []byte(strings.Repeat("The sandbox runs untrusted JavaScript with limits on time and memory. ", 40))},
}

func TestIngestFS(t *testing.T) {
	ctx := context.Background()
	s := hashMemory(t)
	var progress []vector.Progress
	g, err := vector.NewIngester(s, vector.IngestConfig{
		ChunkSize: 300, Overlap: 50, BatchSize: 3,
		Metadata: map[string]any{"corpus": "docs"},
		Progress: func(p vector.Progress) { progress = append(progress, p) },
	})
	require.NoError(t, err)
	res, err := g.IngestFS(ctx, docsFS, nil)
	require.NoError(t, err)
	require.Equal(t, 4, res.Files)
	require.Equal(t, []string{"logo.png"}, res.Skipped, "binary files are skipped")
	require.Equal(t, res.Chunks, s.Len())
	require.Greater(t, res.Chunks, 4+5, "the long file is split in many chunks")

	last := progress[len(progress)-1]
	require.Equal(t, vector.Progress{Source: "notes/long.txt", Chunks: last.TotalChunks, TotalChunks: last.TotalChunks, Files: 4, TotalFiles: 5}, last)
	require.Equal(t, "cooking/bread.md", progress[0].Source, "files go in lexical order")
	for _, p := range progress {
		require.LessOrEqual(t, p.Chunks, p.TotalChunks)
	}

	ms, err := s.Search(ctx, vector.Query{Text: "how do I wrap errors", K: 1})
	require.NoError(t, err)
	require.Equal(t, vector.ChunkID("go/errors.md", 0), ms[0].ID)
	require.Equal(t, map[string]any{"source": "go/errors.md", "chunk": 0.0, "corpus": "docs"}, ms[0].Metadata)

	ms, err = s.Search(ctx, vector.Query{Text: "sandbox limits", K: 100, Filter: vector.Eq(vector.MetaSource, "notes/long.txt")})
	require.NoError(t, err)
	require.Len(t, ms, last.TotalChunks)

	// Only matching files.
	s2 := hashMemory(t)
	g2, err := vector.NewIngester(s2, vector.IngestConfig{})
	require.NoError(t, err)
	res, err = g2.IngestFS(ctx, docsFS, func(p string) bool { return strings.HasPrefix(p, "go/") })
	require.NoError(t, err)
	require.Equal(t, vector.IngestResult{Files: 2, Chunks: 2}, res)
}

func TestIngestReplacesChunks(t *testing.T) {
	ctx := context.Background()
	s := hashMemory(t)
	g, err := vector.NewIngester(s, vector.IngestConfig{ChunkSize: 50, Unit: vector.Tokens})
	require.NoError(t, err)
	n, err := g.Ingest(ctx, "a.txt", "old text about parsing", map[string]any{"v": 1})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	_, err = g.Ingest(ctx, "a.txt", "new text about baking", map[string]any{"v": 2})
	require.NoError(t, err)
	require.Equal(t, 1, s.Len(), "ingesting a source again overwrites it")
	ms, err := s.Search(ctx, vector.Query{Text: "baking"})
	require.NoError(t, err)
	require.Equal(t, 2.0, ms[0].Metadata["v"])
}

func TestIngestReplaceDeletesOldChunks(t *testing.T) {
	ctx := context.Background()
	s := hashMemory(t)
	for _, replace := range []bool{false, true} {
		g, err := vector.NewIngester(s, vector.IngestConfig{ChunkSize: 40, Overlap: 5, Replace: replace})
		require.NoError(t, err)
		src := fmt.Sprint("doc-", replace)
		n, err := g.Ingest(ctx, src, strings.Repeat("a long text about many things. ", 20), nil)
		require.NoError(t, err)
		require.Greater(t, n, 5)
		_, err = g.Ingest(ctx, src, "now short", nil)
		require.NoError(t, err)
		ms, err := s.Search(ctx, vector.Query{Text: "text", K: 100, Filter: vector.Eq(vector.MetaSource, src)})
		require.NoError(t, err)
		if replace {
			require.Len(t, ms, 1, "the old chunks are gone")
			require.Equal(t, "now short", ms[0].Text)
		} else {
			require.Len(t, ms, n, "without Replace the old chunks beyond the first stay")
		}
	}
}

// failingStore fails every upsert after the first.
type failingStore struct {
	vector.Store
	calls int
}

func (f *failingStore) Upsert(ctx context.Context, docs ...vector.Document) error {
	f.calls++
	if f.calls > 1 {
		return errors.New("disk full")
	}
	return f.Store.Upsert(ctx, docs...)
}

func TestIngestErrors(t *testing.T) {
	ctx := context.Background()
	fs := &failingStore{Store: hashMemory(t)}
	g, err := vector.NewIngester(fs, vector.IngestConfig{ChunkSize: 20, Overlap: 1, BatchSize: 1})
	require.NoError(t, err)
	n, err := g.Ingest(ctx, "x", "one two three four five six seven eight nine ten eleven twelve", nil)
	require.ErrorContains(t, err, "ingest x: chunks 1 to 1: disk full")
	require.Equal(t, 1, n)

	_, err = g.Ingest(ctx, "", "text", nil)
	require.ErrorContains(t, err, "source name is empty")

	for _, tc := range []struct {
		o   vector.IngestConfig
		msg string
	}{
		{vector.IngestConfig{ChunkSize: -1}, "must not be negative"},
		{vector.IngestConfig{ChunkSize: 10, Overlap: 10}, "Overlap 10 must be less than ChunkSize 10"},
		{vector.IngestConfig{Metadata: map[string]any{"x": struct{}{}}}, `metadata "x"`},
	} {
		_, err := vector.NewIngester(fs, tc.o)
		require.ErrorContains(t, err, tc.msg)
	}
	_, err = vector.NewIngester(nil, vector.IngestConfig{})
	require.ErrorContains(t, err, "nil store")
}

func TestSearchTool(t *testing.T) {
	ctx := context.Background()
	s := hashMemory(t)
	g, err := vector.NewIngester(s, vector.IngestConfig{})
	require.NoError(t, err)
	_, err = g.IngestFS(ctx, docsFS, nil)
	require.NoError(t, err)

	tool, err := vector.NewSearchTool(s, vector.SearchToolConfig{Description: "Go and cooking notes.", MaxTextBytes: 40, MaxK: 2})
	require.NoError(t, err)
	require.Equal(t, "search_knowledge", tool.Info().Name)
	require.Equal(t, "Go and cooking notes.", tool.Info().Description)
	require.Contains(t, string(tool.Info().InputSchema), `"query"`)

	out, err := agent.InvokeAs[vector.SearchOutput](ctx, tool, map[string]any{"query": "bake bread dough"})
	require.NoError(t, err)
	require.Len(t, out.Matches, 2, "MaxK caps the default K")
	top := out.Matches[0]
	require.Equal(t, "cooking/bread.md#0", top.ID)
	require.Equal(t, "cooking/bread.md", top.Metadata["source"])
	require.Greater(t, top.Score, out.Matches[1].Score)
	require.LessOrEqual(t, len(top.Text), 40+len("…"))
	require.True(t, strings.HasSuffix(top.Text, "…"))

	out, err = agent.InvokeAs[vector.SearchOutput](ctx, tool, map[string]any{"query": "channels", "k": 1})
	require.NoError(t, err)
	require.Len(t, out.Matches, 1)
	require.Equal(t, "go/channels.md#0", out.Matches[0].ID)

	_, err = agent.Invoke(ctx, tool, map[string]any{"query": ""})
	require.Error(t, err, "an empty query fails validation")

	// A fixed filter applies to every search.
	only, err := vector.NewSearchTool(s, vector.SearchToolConfig{Name: "go_docs", Filter: vector.In("source", "go/errors.md")})
	require.NoError(t, err)
	out, err = agent.InvokeAs[vector.SearchOutput](ctx, only, map[string]any{"query": "bake bread dough"})
	require.NoError(t, err)
	require.Len(t, out.Matches, 1)
	require.Equal(t, "go/errors.md#0", out.Matches[0].ID)

	_, err = vector.NewSearchTool(s, vector.SearchToolConfig{K: -1})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
	_, err = vector.NewSearchTool(s, vector.SearchToolConfig{Filter: vector.Eq("", 1)})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
	_, err = vector.NewSearchTool(nil, vector.SearchToolConfig{})
	require.ErrorIs(t, err, agent.ErrInvalidConfig)
}
