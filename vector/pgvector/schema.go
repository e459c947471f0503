package pgvector

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/loomwork/loom/vector"
)

// maxIndexDims is the most dimensions pgvector's HNSW index takes for the
// vector type.
const maxIndexDims = 2000

var tableName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,47}$`)

// checkConfig validates cfg, fills its defaults and returns the store's
// dimensions.
func checkConfig(cfg *Config) (int, error) {
	switch {
	case cfg.DSN == "" && cfg.Pool == nil:
		return 0, fmt.Errorf("%w: set DSN or Pool", ErrConfig)
	case cfg.DSN != "" && cfg.Pool != nil:
		return 0, fmt.Errorf("%w: set DSN or Pool, not both", ErrConfig)
	}
	if cfg.Table == "" {
		cfg.Table = DefaultTable
	}
	if !tableName.MatchString(cfg.Table) {
		return 0, fmt.Errorf("%w: Table %q: use 1 to 48 lower-case letters, digits and underscores, starting with a letter or underscore", ErrConfig, cfg.Table)
	}
	if cfg.EFSearch < 0 || cfg.EFSearch > 1000 {
		return 0, fmt.Errorf("%w: EFSearch is %d; use 0 for pgvector's default of 40, or 1 to 1000", ErrConfig, cfg.EFSearch)
	}
	dims, err := vector.ConfigDimensions(cfg.Dimensions, cfg.Embedder, ErrConfig)
	if err != nil {
		return 0, err
	}
	if dims > 16000 {
		return 0, fmt.Errorf("%w: Dimensions is %d; pgvector's vector type holds at most 16000", ErrConfig, dims)
	}
	return dims, nil
}

// migrate creates the extension, table and indexes when missing, under an
// advisory lock so that stores opening the same table at once do not
// race, and checks the dimensions of an existing table.
func (s *Store) migrate(ctx context.Context, name string) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('loom.vector.' || $1))`, name); err != nil {
			return fmt.Errorf("pgvector: lock table %s: %w", name, err)
		}
		var have bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')`).Scan(&have); err != nil {
			return fmt.Errorf("pgvector: look up the vector extension: %w", err)
		}
		if !have {
			if _, err := tx.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`); err != nil {
				return fmt.Errorf("pgvector: the vector extension is not installed and cannot be created (install pgvector, or ask an administrator to run CREATE EXTENSION vector): %w", err)
			}
		}
		var version string
		if err := tx.QueryRow(ctx, `SELECT extversion FROM pg_extension WHERE extname = 'vector'`).Scan(&version); err != nil {
			return fmt.Errorf("pgvector: read the vector extension's version: %w", err)
		}
		s.iterative = atLeast(version, 0, 8)
		var typ *string
		if err := tx.QueryRow(ctx, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute
WHERE attrelid = to_regclass($1) AND attname = 'embedding' AND NOT attisdropped`, s.table).Scan(&typ); err != nil && err != pgx.ErrNoRows {
			return fmt.Errorf("pgvector: look up table %s: %w", name, err)
		}
		hnsw := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON %s USING hnsw (embedding vector_cosine_ops)`,
			pgx.Identifier{name + "_embedding_idx"}.Sanitize(), s.table)
		if typ != nil {
			if err := checkColumn(name, *typ, s.dims); err != nil {
				return err
			}
			// A table an Exact store created has no HNSW index yet.
			if !s.exact && s.dims <= maxIndexDims {
				if _, err := tx.Exec(ctx, hnsw); err != nil {
					return fmt.Errorf("pgvector: index table %s: %w", name, err)
				}
			}
			return nil
		}
		ddl := []string{fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
	id text PRIMARY KEY,
	text text NOT NULL,
	metadata jsonb NOT NULL,
	embedding vector(%d) NOT NULL)`, s.table, s.dims),
			fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON %s USING gin (metadata jsonb_path_ops)`,
				pgx.Identifier{name + "_metadata_idx"}.Sanitize(), s.table),
		}
		// An Exact store never reads the HNSW index, and keeping one up
		// to date is most of the cost of a write.
		if !s.exact && s.dims <= maxIndexDims {
			ddl = append(ddl, hnsw)
		}
		for _, q := range ddl {
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("pgvector: create table %s: %w", name, err)
			}
		}
		return nil
	})
}

// atLeast reports whether a version such as "0.8.7" is at least
// major.minor.
func atLeast(version string, major, minor int) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// checkColumn compares an existing embedding column's type, as
// "vector(3)", with the dimensions asked for.
func checkColumn(table, typ string, dims int) error {
	inner, ok := strings.CutPrefix(typ, "vector(")
	inner, ok2 := strings.CutSuffix(inner, ")")
	n, err := strconv.Atoi(inner)
	if !ok || !ok2 || err != nil {
		return fmt.Errorf("%w: table %s has an embedding column of type %s, not vector(n); use another Table", ErrConfig, table, typ)
	}
	if n != dims {
		return &vector.DimensionError{Want: n, Got: dims, What: fmt.Sprintf("the config opening table %s", table)}
	}
	return nil
}
