package embedding

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/loomwork/loom/model"
)

func TestBatches(t *testing.T) {
	long := strings.Repeat("x", 300) // 100 estimated tokens
	for _, tc := range []struct {
		name   string
		texts  []string
		items  int
		tokens int
		want   [][2]int
	}{
		{"empty", nil, 3, 0, nil},
		{"by count", []string{"a", "b", "c", "d", "e"}, 2, 0, [][2]int{{0, 2}, {2, 4}, {4, 5}}},
		{"exact count", []string{"a", "b"}, 2, 0, [][2]int{{0, 2}}},
		{"by tokens", []string{long, long, long}, 10, 250, [][2]int{{0, 2}, {2, 3}}},
		{"one text over the limit", []string{"a", long, "b"}, 10, 50, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Batches(tc.texts, tc.items, tc.tokens))
		})
	}
	require.Equal(t, 1, EstimateTokens("abc"))
	require.Equal(t, 2, EstimateTokens("abcd"))
}

func TestCallSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background()) //nolint:errcheck // test cleanup
	ctx, parent := tp.Tracer("t").Start(context.Background(), "parent")
	_, c := Start(ctx, "openai", "text-embedding-3-small", 256, 3)
	c.End(model.Usage{InputTokens: 42}, false, 0.001, true, 2, nil)
	_, c = Start(ctx, "gemini", "gemini-embedding-001", 768, 1)
	c.End(model.Usage{InputTokens: 5}, true, 0, false, 1, &model.APIError{Provider: "gemini", StatusCode: 429})
	parent.End()

	spans := rec.Ended()
	require.Len(t, spans, 3)
	ok, failed := spans[0], spans[1]
	require.Equal(t, "embeddings text-embedding-3-small", ok.Name())
	require.Equal(t, parent.SpanContext().SpanID(), ok.Parent().SpanID(), "the span of the caller's provider is the parent")
	attrs := map[attribute.Key]attribute.Value{}
	for _, a := range ok.Attributes() {
		attrs[a.Key] = a.Value
	}
	require.Equal(t, "embeddings", attrs["gen_ai.operation.name"].AsString())
	require.Equal(t, "openai", attrs["gen_ai.provider.name"].AsString())
	require.Equal(t, int64(256), attrs["gen_ai.embeddings.dimension.count"].AsInt64())
	require.Equal(t, int64(42), attrs["gen_ai.usage.input_tokens"].AsInt64())
	require.Equal(t, 0.001, attrs["loom.cost.usd"].AsFloat64())
	require.Equal(t, int64(2), attrs["loom.embeddings.batches"].AsInt64())

	attrs = map[attribute.Key]attribute.Value{}
	for _, a := range failed.Attributes() {
		attrs[a.Key] = a.Value
	}
	require.Equal(t, "http.429", attrs["error.type"].AsString())
	require.True(t, attrs["loom.usage.estimated"].AsBool())
	_, priced := attrs["loom.cost.usd"]
	require.False(t, priced)
	require.Equal(t, "Error", failed.Status().Code.String())
}

func TestTotals(t *testing.T) {
	var tt Totals
	tt.Add(model.Usage{InputTokens: 3}, 0.5)
	tt.Add(model.Usage{InputTokens: 4}, 0.25)
	require.Equal(t, model.Usage{InputTokens: 7}, tt.Usage())
	require.Equal(t, 0.75, tt.Cost())
}

func TestCost(t *testing.T) {
	list := map[string]float64{"text-embedding-3-small": 0.02}
	usd, ok := Cost("openai", "text-embedding-3-small", model.Usage{InputTokens: 1_000_000}, list)
	require.True(t, ok)
	require.InDelta(t, 0.02, usd, 1e-12)
	_, ok = Cost("openai", "my-embedder", model.Usage{InputTokens: 1}, list)
	require.False(t, ok)
}
