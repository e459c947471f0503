package pgvector_test

import (
	"testing"

	"github.com/loomwork/loom/internal/config/configtest"
	"github.com/loomwork/loom/vector/pgvector"
)

// TestConfigRule checks this module's configs against loom's zero/negative
// rule, and that every one has a case. Numbers are checked before the
// store connects, so the zero config's build fails here only for want of
// a server (a closed port).
func TestConfigRule(t *testing.T) {
	cases := map[string]configtest.Case{
		"vector/pgvector.Config": {
			Value: pgvector.Config{DSN: "postgres://loom@127.0.0.1:1/x?connect_timeout=1", Dimensions: 3},
			Build: func(t *testing.T, cfg any) error {
				s, err := pgvector.Open(t.Context(), cfg.(pgvector.Config))
				if err == nil {
					_ = s.Close()
				}
				return err
			},
			ZeroNeeds: "a PostgreSQL server with pgvector",
		},
	}
	configtest.Module(t, "vector/pgvector", cases)
}
