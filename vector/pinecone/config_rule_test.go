package pinecone_test

import (
	"testing"

	"github.com/loomwork/loom/internal/config/configtest"
	"github.com/loomwork/loom/vector/pinecone"
)

// TestConfigRule checks this module's configs against loom's zero/negative
// rule (on the fake server), and that every one has a case.
func TestConfigRule(t *testing.T) {
	_, host := startFake(t, 4)
	cases := map[string]configtest.Case{
		"vector/pinecone.Config": {Value: pinecone.Config{Index: connect(t, host, "rule"), Dimensions: 4}, Build: configtest.Ctor(pinecone.New)},
	}
	configtest.Module(t, "vector/pinecone", cases)
}
