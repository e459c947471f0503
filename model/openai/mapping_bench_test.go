package openai

import (
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/providertest"
)

// BenchmarkRequestMapping is loom's whole cost before the SDK sends a
// request: validation and mapping onto the SDK's parameters. It is the
// latency loom adds to the first chunk.
func BenchmarkRequestMapping(b *testing.B) {
	m, err := New("gpt-5.4-mini", model.WithAPIKey("k"), model.WithBaseURL("http://localhost/v1"))
	if err != nil {
		b.Fatal(err)
	}
	req := providertest.MappingRequest(model.Options{Temperature: model.Ptr(0.2), MaxOutputTokens: model.Ptr(512)})
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
