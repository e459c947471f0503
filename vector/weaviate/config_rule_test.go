package weaviate_test

import (
	"testing"

	"github.com/loomwork/loom/internal/config/configtest"
	"github.com/loomwork/loom/vector/weaviate"
)

// TestConfigRule checks this module's configs against loom's zero/negative
// rule (on the fake server), and that every one has a case.
func TestConfigRule(t *testing.T) {
	c := client(t, startFake(t))
	cases := map[string]configtest.Case{
		"vector/weaviate.Config": {Value: weaviate.Config{Client: c, Dimensions: 2}, Build: func(t *testing.T, cfg any) error {
			_, err := weaviate.Open(t.Context(), cfg.(weaviate.Config))
			return err
		}},
	}
	configtest.Module(t, "vector/weaviate", cases)
}
