package temporal_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/config/configtest"
	"github.com/loomwork/loom/temporal"
)

// TestConfigRule checks this module's configs against loom's zero/negative
// rule, and that every one has a case.
func TestConfigRule(t *testing.T) {
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	cases := map[string]configtest.Case{
		"temporal.Config": {Value: temporal.Config{}, Build: configtest.Ctor(temporal.NewActivities)},
	}
	configtest.EveryConfigHasACase(t, repo, filepath.Join(repo, "temporal"), cases)
	configtest.Rule(t, cases)
}
