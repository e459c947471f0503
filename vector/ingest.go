package vector

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"strings"
	"unicode/utf8"
)

// The metadata keys the [Ingester] sets on every chunk.
const (
	MetaSource = "source" // the source's name or path
	MetaChunk  = "chunk"  // the chunk's index within its source, from 0
)

// IngestConfig configures an [Ingester]. Zero values mean defaults;
// negative numbers are errors.
type IngestConfig struct {
	// ChunkSize is the most units in a chunk: 0 means 1000 characters or
	// 250 tokens.
	ChunkSize int
	// Overlap is how many units a chunk repeats from the previous one: 0
	// means a fifth of ChunkSize. It must be less than ChunkSize.
	Overlap int
	// Unit is what ChunkSize and Overlap count: [Characters] (the default)
	// or approximate [Tokens].
	Unit ChunkUnit
	// BatchSize is the number of chunks embedded and upserted together: 0
	// means 64.
	BatchSize int
	// Metadata is added to every chunk, under the source and chunk keys.
	Metadata map[string]any
	// Progress, when set, is called after each batch is stored.
	Progress func(Progress)
	// Replace deletes a source's chunks left from an earlier, longer
	// version after storing the new ones, at the cost of one search per
	// source. Without it they stay until deleted.
	Replace bool
}

// Progress reports an ingestion's advance.
type Progress struct {
	Source      string // the source being ingested
	Chunks      int    // chunks of Source stored so far
	TotalChunks int    // chunks of Source in all
	Files       int    // sources finished so far (IngestFS), this one excluded
	TotalFiles  int    // sources to ingest (IngestFS); 1 for Ingest
}

// Ingester splits texts into overlapping chunks and stores them in batches,
// each chunk with its source and index in the metadata ([MetaSource],
// [MetaChunk]) and the id "SOURCE#INDEX". The store embeds the chunks with
// its embedder, one call per batch.
//
// Ingesting a source again overwrites its chunks by id; when the new text
// has fewer chunks, [IngestConfig.Replace] deletes the extra old ones.
type Ingester struct {
	store Store
	o     IngestConfig
}

// NewIngester returns an ingester into store.
func NewIngester(store Store, opts IngestConfig) (*Ingester, error) {
	if store == nil {
		return nil, errors.New("vector: NewIngester was given a nil store")
	}
	if opts.ChunkSize < 0 || opts.Overlap < 0 || opts.BatchSize < 0 {
		return nil, fmt.Errorf("vector: ingester: ChunkSize (%d), Overlap (%d) and BatchSize (%d) must not be negative; 0 means the default",
			opts.ChunkSize, opts.Overlap, opts.BatchSize)
	}
	if opts.ChunkSize == 0 {
		opts.ChunkSize = 1000
		if opts.Unit == Tokens {
			opts.ChunkSize = 250
		}
	}
	if opts.Overlap == 0 {
		opts.Overlap = opts.ChunkSize / 5
	}
	if opts.Overlap >= opts.ChunkSize {
		return nil, fmt.Errorf("vector: ingester: Overlap %d must be less than ChunkSize %d", opts.Overlap, opts.ChunkSize)
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = 64
	}
	if _, err := NormalizeMetadata(opts.Metadata); err != nil {
		return nil, fmt.Errorf("vector: ingester: %w", err)
	}
	return &Ingester{store: store, o: opts}, nil
}

// ChunkID returns the id of a source's chunk: "SOURCE#INDEX".
func ChunkID(source string, index int) string { return fmt.Sprintf("%s#%d", source, index) }

// Ingest splits text and stores its chunks under source, returning how
// many it stored. metadata is added to each chunk's (over the options'
// metadata). It stops at the first failed batch; the batches before it
// stay stored.
func (g *Ingester) Ingest(ctx context.Context, source, text string, metadata map[string]any) (int, error) {
	return g.ingest(ctx, source, text, metadata, Progress{TotalFiles: 1})
}

func (g *Ingester) ingest(ctx context.Context, source, text string, metadata map[string]any, p Progress) (int, error) {
	if source == "" {
		return 0, errors.New("vector: ingest: the source name is empty; name the text's origin, as a path or URL")
	}
	chunks, err := Split(text, g.o.ChunkSize, g.o.Overlap, g.o.Unit)
	if err != nil {
		return 0, err
	}
	p.Source, p.TotalChunks = source, len(chunks)
	base := maps.Clone(g.o.Metadata)
	if base == nil {
		base = map[string]any{}
	}
	maps.Copy(base, metadata)
	for lo := 0; lo < len(chunks); lo += g.o.BatchSize {
		hi := min(lo+g.o.BatchSize, len(chunks))
		docs := make([]Document, 0, hi-lo)
		for i := lo; i < hi; i++ {
			md := maps.Clone(base)
			md[MetaSource] = source
			md[MetaChunk] = float64(i)
			docs = append(docs, Document{ID: ChunkID(source, i), Text: chunks[i].Text, Metadata: md})
		}
		if err := g.store.Upsert(ctx, docs...); err != nil {
			return lo, fmt.Errorf("vector: ingest %s: chunks %d to %d: %w", source, lo, hi-1, err)
		}
		p.Chunks = hi
		if g.o.Progress != nil {
			g.o.Progress(p)
		}
	}
	if g.o.Replace {
		if err := g.deleteStale(ctx, source, text, len(chunks)); err != nil {
			return len(chunks), err
		}
	}
	return len(chunks), nil
}

// maxStaleChunks bounds the old chunks one replacement finds and deletes.
const maxStaleChunks = 10000

// deleteStale deletes source's chunks numbered n and up.
func (g *Ingester) deleteStale(ctx context.Context, source, text string, n int) error {
	query := strings.TrimSpace(text)
	if query == "" {
		query = source
	}
	ms, err := g.store.Search(ctx, Query{Text: cut(query, 2000), K: maxStaleChunks,
		Filter: And(Eq(MetaSource, source), Gte(MetaChunk, float64(n)))})
	if err != nil {
		return fmt.Errorf("vector: ingest %s: find old chunks: %w", source, err)
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	if err := g.store.Delete(ctx, ids...); err != nil {
		return fmt.Errorf("vector: ingest %s: delete old chunks: %w", source, err)
	}
	return nil
}

// IngestResult sums up an [Ingester.IngestFS].
type IngestResult struct {
	Files   int      // text files ingested
	Chunks  int      // chunks stored
	Skipped []string // files left out as not UTF-8 text
}

// IngestFS ingests every regular file of fsys for which match returns true
// (nil: every file), in lexical order, with its path as the source. Files
// that are not UTF-8 text (a NUL byte or an invalid sequence) are skipped
// and listed in the result.
func (g *Ingester) IngestFS(ctx context.Context, fsys fs.FS, match func(path string) bool) (IngestResult, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && (match == nil || match(path)) {
			paths = append(paths, path)
		}
		return nil
	})
	var res IngestResult
	if err != nil {
		return res, fmt.Errorf("vector: ingest: list files: %w", err)
	}
	for i, path := range paths {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return res, fmt.Errorf("vector: ingest: %w", err)
		}
		if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
			res.Skipped = append(res.Skipped, path)
			continue
		}
		n, err := g.ingest(ctx, path, string(b), nil, Progress{Files: i, TotalFiles: len(paths)})
		res.Chunks += n
		if err != nil {
			return res, err
		}
		res.Files++
	}
	return res, nil
}
