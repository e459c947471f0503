package anthropic

import (
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/providertest"
)

// BenchmarkRequestMapping is loom's whole cost before the SDK sends a
// request: validation and mapping onto the SDK's parameters. It is the
// latency loom adds to the first chunk.
func BenchmarkRequestMapping(b *testing.B) {
	m, err := New("claude-sonnet-5-5", model.WithAPIKey("k"), model.WithBaseURL("http://localhost"))
	if err != nil {
		b.Fatal(err)
	}
	req := providertest.MappingRequest(model.Options{MaxOutputTokens: model.Ptr(512)})
	b.ReportAllocs()
	for b.Loop() {
		if err := req.Validate(); err != nil {
			b.Fatal(err)
		}
		if _, err := m.params(req); err != nil {
			b.Fatal(err)
		}
	}
}
