package chroma_test

import (
	"testing"

	"github.com/loomwork/loom/internal/config/configtest"
	"github.com/loomwork/loom/vector/chroma"
)

// TestConfigRule checks this module's configs against loom's zero/negative
// rule (on the fake server), and that every one has a case.
func TestConfigRule(t *testing.T) {
	c := client(t, startFake(t))
	cases := map[string]configtest.Case{
		"vector/chroma.Config": {Value: chroma.Config{Client: c, Dimensions: 4}, Build: func(t *testing.T, cfg any) error {
			_, err := chroma.Open(t.Context(), cfg.(chroma.Config))
			return err
		}},
	}
	configtest.Module(t, "vector/chroma", cases)
}
