package providertest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/loomwork/loom/model"
)

// Replay starts a server that answers every request with body as an SSE
// stream, and returns its base URL (no trailing slash).
func Replay(b *testing.B, body []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// PerChunk runs the benchmark loop over run, which drains one stream and
// returns its chunk count, and reports allocations per chunk.
func PerChunk(b *testing.B, run func() int) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	chunks := 0
	for b.Loop() {
		chunks += run()
	}
	runtime.ReadMemStats(&after)
	if chunks > 0 {
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(chunks), "allocs/chunk")
	}
}

// Drain streams req from m to the end and returns the number of chunks.
func Drain(b *testing.B, m model.Model, req model.Request) int {
	n := 0
	for _, err := range m.Stream(context.Background(), req) {
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
	return n
}

// FirstChunk runs the benchmark loop over call, which starts one stream and
// calls first when its first chunk is in, and reports the mean time from
// the start to that point (what comes after, such as closing the stream,
// is not counted).
func FirstChunk(b *testing.B, call func(first func())) {
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		call(func() { total += time.Since(start) })
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/first-chunk")
}

// ModelFirstChunk is [FirstChunk] for req streamed from m.
func ModelFirstChunk(b *testing.B, m model.Model, req model.Request) {
	FirstChunk(b, func(first func()) {
		for _, err := range m.Stream(context.Background(), req) {
			if err != nil {
				b.Fatal(err)
			}
			first()
			break
		}
	})
}

// MappingRequest is a typical agent turn for the request-mapping
// benchmarks: a system prompt, a question, a tool call and its result, two
// tools, and the given options.
func MappingRequest(opts model.Options) model.Request {
	return model.Request{
		Messages: []model.Message{
			model.SystemMessage("You are a careful assistant."),
			model.UserMessage("Weather in Paris?"),
			{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
			model.ToolMessage(model.ToolResult{CallID: "call_1", Name: "get_weather", Content: json.RawMessage(`{"sky":"clear","c":21}`)}),
		},
		Tools: []model.Tool{
			{Name: "get_weather", Description: "Weather for a city.", Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
			{Name: "get_time", Description: "Time in a zone.", Schema: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"}},"required":["zone"]}`)},
		},
		Options: opts,
	}
}
