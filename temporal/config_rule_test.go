package temporal_test

import (
	"testing"

	"github.com/loomwork/loom/internal/config/configtest"
	"github.com/loomwork/loom/temporal"
)

// TestConfigRule checks this module's configs against loom's zero/negative
// rule, and that every one has a case.
func TestConfigRule(t *testing.T) {
	cases := map[string]configtest.Case{
		"temporal.Config": {Value: temporal.Config{}, Build: configtest.Ctor(temporal.NewActivities)},
	}
	configtest.Module(t, "temporal", cases)
}
