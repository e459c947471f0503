package chroma_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/config/configtest"
	"github.com/loomwork/loom/vector/chroma"
)

// TestConfigRule checks this module's configs against loom's zero/negative
// rule (on the fake server), and that every one has a case.
func TestConfigRule(t *testing.T) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	c := client(t, startFake(t))
	cases := map[string]configtest.Case{
		"vector/chroma.Config": {Value: chroma.Config{Client: c, Dimensions: 4}, Build: func(t *testing.T, cfg any) error {
			_, err := chroma.Open(t.Context(), cfg.(chroma.Config))
			return err
		}},
	}
	configtest.EveryConfigHasACase(t, repo, filepath.Join(repo, "vector", "chroma"), cases)
	configtest.Rule(t, cases)
}
