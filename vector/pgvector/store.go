package pgvector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	pgv "github.com/pgvector/pgvector-go"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/vector"
)

// DefaultTable is the table a [Config] with no Table uses.
const DefaultTable = "loom_vectors"

// Config says where and how a [Store] keeps its documents.
type Config struct {
	// DSN opens a pool the store owns and closes, as
	// "postgres://user:pass@host:5432/db". Set DSN or Pool, not both.
	DSN string
	// Pool is a pool the caller owns: Close leaves it open.
	Pool *pgxpool.Pool
	// Table is the table's name: lower-case letters, digits and
	// underscores, starting with a letter or underscore. Empty means
	// [DefaultTable].
	Table string
	// Dimensions is the length of every vector. Zero takes the
	// Embedder's; negative is an error.
	Dimensions int
	// Embedder embeds documents and queries given as text. Nil: every
	// document and query must carry a vector.
	Embedder model.Embedder
	// Exact skips the HNSW index, so every search is an exact sequential
	// scan. A table an Exact store creates gets no HNSW index.
	Exact bool
	// EFSearch is hnsw.ef_search, the candidate list of an index scan;
	// a search raises it to at least K. Zero means pgvector's default of
	// 40; negative is an error, as is more than 1000 (pgvector's limit).
	EFSearch int
}

// Store is a [vector.Store] on one PostgreSQL table. It is safe for
// concurrent use.
type Store struct {
	pool     *pgxpool.Pool
	ownPool  bool
	table    string // quoted identifier
	name     string
	dims     int
	emb      model.Embedder
	exact    bool
	efSearch int
	// iterative is whether the server's pgvector (0.8 or later) has
	// iterative index scans.
	iterative bool

	gate vector.Gate // calls in flight; closed by Close
}

var _ vector.Store = (*Store)(nil)

// Open connects, creates the table and indexes when missing and checks an
// existing table's dimensions.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	dims, err := checkConfig(&cfg)
	if err != nil {
		return nil, err
	}
	s := &Store{
		pool: cfg.Pool, table: pgx.Identifier{cfg.Table}.Sanitize(), name: cfg.Table, dims: dims,
		emb: cfg.Embedder, exact: cfg.Exact, efSearch: cfg.EFSearch,
	}
	if s.pool == nil {
		s.pool, err = pgxpool.New(ctx, cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("pgvector: open pool: %w", err)
		}
		s.ownPool = true
	}
	if err := s.migrate(ctx, cfg.Table); err != nil {
		if s.ownPool {
			s.pool.Close()
		}
		return nil, err
	}
	return s, nil
}

// Dimensions returns the length of every stored vector.
func (s *Store) Dimensions() int { return s.dims }

// Close closes the pool when the store opened it. Later calls fail with
// [vector.ErrClosed].
func (s *Store) Close() error {
	if s.gate.Close() && s.ownPool {
		s.pool.Close()
	}
	return nil
}

// Upsert stores docs in one transaction, replacing documents with the same
// ids.
func (s *Store) Upsert(ctx context.Context, docs ...vector.Document) error {
	if err := s.gate.Enter("pgvector"); err != nil {
		return err
	}
	defer s.gate.Exit()
	docs, err := vector.PrepareDocuments(ctx, s.emb, s.dims, docs)
	if err != nil || len(docs) == 0 {
		return err
	}
	// One lock order for every writer, so that two upserts of the same ids
	// in another order cannot deadlock.
	slices.SortFunc(docs, func(a, b vector.Document) int { return strings.Compare(a.ID, b.ID) })
	// One statement per chunk of rows, the columns sent as arrays and
	// unnested: a statement per row costs a round trip and a parse each.
	q := `INSERT INTO ` + s.table + ` (id, text, metadata, embedding)
SELECT id, text, metadata::jsonb, embedding::vector FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS r(id, text, metadata, embedding)
ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text, metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding`
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for chunk := range slices.Chunk(docs, upsertChunk) {
			ids := make([]string, len(chunk))
			texts := make([]string, len(chunk))
			metas := make([]string, len(chunk))
			vecs := make([]string, len(chunk))
			for i, d := range chunk {
				meta := []byte("{}")
				if d.Metadata != nil {
					if meta, err = json.Marshal(d.Metadata); err != nil {
						return fmt.Errorf("document %q: encode metadata: %w", d.ID, err)
					}
				}
				ids[i], texts[i], metas[i], vecs[i] = d.ID, d.Text, string(meta), pgv.NewVector(d.Vector).String()
			}
			if _, err := tx.Exec(ctx, q, ids, texts, metas, vecs); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("pgvector: upsert %d documents: %w", len(docs), err)
	}
	return nil
}

// upsertChunk is how many rows one INSERT statement of an Upsert carries.
const upsertChunk = 1000

// Delete removes the documents with these ids; unknown ids are ignored.
func (s *Store) Delete(ctx context.Context, ids ...string) error {
	if err := s.gate.Enter("pgvector"); err != nil {
		return err
	}
	defer s.gate.Exit()
	if len(ids) == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM `+s.table+` WHERE id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("pgvector: delete %d ids: %w", len(ids), err)
	}
	return nil
}

// Search returns the closest documents passing q.Filter, best first; see
// the package doc for how the index and the exact fallback combine.
func (s *Store) Search(ctx context.Context, q vector.Query) ([]vector.Match, error) {
	if err := s.gate.Enter("pgvector"); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	q, qvec, err := vector.PrepareQuery(ctx, s.emb, s.dims, q)
	if err != nil {
		return nil, err
	}
	pred, err := jsonPath(q.Filter)
	if err != nil {
		return nil, fmt.Errorf("pgvector: %w", err)
	}
	if pred.expr == "" && !pred.constant {
		return nil, nil
	}
	where, args := "", []any{pgv.NewVector(qvec).String(), q.K}
	if pred.expr != "" {
		where, args = "WHERE metadata @@ $3::jsonpath", append(args, pred.expr)
	}
	vecCol := "NULL::text"
	if q.WithVectors {
		vecCol = "embedding::text"
	}
	sql := `SELECT id, text, metadata, ` + vecCol + `, embedding <=> $1::vector AS distance FROM ` + s.table +
		` ` + where + ` ORDER BY embedding <=> $1::vector LIMIT $2`

	// Each attempt is one batch: its set_config calls (local to the
	// transaction) and the query, sent together and run as one implicit
	// transaction up to the batch's Sync, so the settings hold for the
	// query alone and cost no round trip of their own.
	var rows []row
	if !s.exact {
		ef := s.efSearch
		if ef == 0 {
			ef = 40
		}
		settings := `SELECT set_config('hnsw.ef_search', $1, true)`
		if s.iterative {
			settings += `, set_config('hnsw.iterative_scan', 'relaxed_order', true)`
		}
		if rows, err = s.attempt(ctx, settings, []any{fmt.Sprint(min(max(ef, q.K), 1000))}, sql, args); err != nil {
			return nil, fmt.Errorf("pgvector: search: %w", err)
		}
	}
	if s.exact || len(rows) < q.K {
		if rows, err = s.attempt(ctx, `SELECT set_config('enable_indexscan', 'off', true)`, nil, sql, args); err != nil {
			return nil, fmt.Errorf("pgvector: search: %w", err)
		}
	}
	return matches(rows, q.MinScore)
}

// row is one search result as read.
type row struct {
	id, text string
	vec      *string // nil unless the query asked for vectors
	meta     map[string]any
	distance float64
}

// attempt sends settings and the query in one batch and reads the query's
// rows.
func (s *Store) attempt(ctx context.Context, settings string, settingArgs []any, sql string, args []any) ([]row, error) {
	var b pgx.Batch
	b.Queue(settings, settingArgs...)
	b.Queue(sql, args...)
	br := s.pool.SendBatch(ctx, &b)
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return nil, err
	}
	rs, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	out, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.id, &x.text, &x.meta, &x.vec, &x.distance)
		return x, err
	})
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return out, err
}

// matches sorts rows by distance (a relaxed index scan may return them
// slightly out of order) and converts them, leaving out scores below
// minScore when it is not zero.
func matches(rows []row, minScore float32) ([]vector.Match, error) {
	slices.SortStableFunc(rows, func(a, b row) int {
		switch {
		case a.distance < b.distance:
			return -1
		case a.distance > b.distance:
			return 1
		}
		return 0
	})
	out := make([]vector.Match, 0, len(rows))
	for _, r := range rows {
		score := float32(1 - r.distance)
		if minScore != 0 && score < minScore {
			break
		}
		var vec []float32
		if r.vec != nil {
			var v pgv.Vector
			if err := v.Parse(*r.vec); err != nil {
				return nil, fmt.Errorf("pgvector: document %q: read vector: %w", r.id, err)
			}
			vec = v.Slice()
		}
		meta, err := vector.NormalizeMetadata(r.meta)
		if err != nil {
			return nil, fmt.Errorf("pgvector: document %q: read metadata: %w", r.id, err)
		}
		out = append(out, vector.Match{
			Document: vector.Document{ID: r.id, Text: r.text, Vector: vec, Metadata: meta},
			Score:    score,
		})
	}
	return out, nil
}

// ErrConfig marks a [Config] that cannot open a store; the message says
// which field is wrong.
var ErrConfig = errors.New("pgvector: invalid config")

// Table returns the name of the store's table.
func (s *Store) Table() string { return s.name }
