package weaviate_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/config/configtest"
	"github.com/loomwork/loom/vector/weaviate"
)

// TestConfigRule checks this module's configs against loom's zero/negative
// rule (on the fake server), and that every one has a case.
func TestConfigRule(t *testing.T) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	c := client(t, startFake(t))
	cases := map[string]configtest.Case{
		"vector/weaviate.Config": {Value: weaviate.Config{Client: c, Dimensions: 2}, Build: func(t *testing.T, cfg any) error {
			_, err := weaviate.Open(t.Context(), cfg.(weaviate.Config))
			return err
		}},
	}
	configtest.EveryConfigHasACase(t, repo, filepath.Join(repo, "vector", "weaviate"), cases)
	configtest.Rule(t, cases)
}
