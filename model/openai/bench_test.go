package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/loomwork/loom/model/openai"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
)

// Benchmarks against a local server replaying a recorded-format stream:
// loom's provider beside the raw SDK, so the difference is loom's cost.
//
//	go test -run '^$' -bench . -benchmem ./model/openai/

const benchChunks = 500

// renderText is an SSE answer of n text deltas.
func renderText(n int) []byte {
	var b bytes.Buffer
	rec := httptest.NewRecorder()
	s := sse{rec}
	s.role()
	for i := range n {
		s.text(fmt.Sprintf("word%d ", i))
	}
	s.finish("stop")
	s.usage(model.Usage{InputTokens: 100, OutputTokens: int64(n)})
	s.done()
	b.Write(rec.Body.Bytes())
	return b.Bytes()
}

// renderToolCall is an SSE answer of one call whose arguments come in n
// fragments.
func renderToolCall(n int) []byte {
	args := `{"text":"`
	for i := range n {
		args += fmt.Sprintf("p%03d", i)
	}
	args += `"}`
	rec := httptest.NewRecorder()
	s := sse{rec}
	s.role()
	s.toolCall(0, model.ToolCall{ID: "call_1", Name: "echo", Arguments: json.RawMessage(args)}, (len(args)+n-1)/n)
	s.finish("tool_calls")
	s.usage(model.Usage{InputTokens: 100, OutputTokens: int64(n)})
	s.done()
	return rec.Body.Bytes()
}

func benchModel(b *testing.B, url string) *openai.Model {
	m, err := openai.New("gpt-5.4-mini", model.WithAPIKey("k"), model.WithBaseURL(url))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func rawService(url string) sdk.ChatCompletionService {
	return sdk.NewChatCompletionService(option.WithBaseURL(url), option.WithAPIKey("k"))
}

func rawParams() sdk.ChatCompletionNewParams {
	return sdk.ChatCompletionNewParams{
		Model:         "gpt-5.4-mini",
		Messages:      []sdk.ChatCompletionMessageParamUnion{sdk.UserMessage("hi")},
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
}

var benchReq = model.Request{Messages: []model.Message{model.UserMessage("hi")}}

// perChunk reports allocations per streamed chunk.

func rawDrain(b *testing.B, svc sdk.ChatCompletionService) int {
	s := svc.NewStreaming(context.Background(), rawParams())
	defer s.Close()
	n := 0
	for s.Next() {
		n++
	}
	if s.Err() != nil {
		b.Fatal(s.Err())
	}
	return n
}

func BenchmarkStreamText(b *testing.B) {
	url := providertest.Replay(b, renderText(benchChunks)) + "/v1"
	b.Run("loom", func(b *testing.B) {
		m := benchModel(b, url)
		providertest.PerChunk(b, func() int { return providertest.Drain(b, m, benchReq) })
	})
	b.Run("sdk", func(b *testing.B) {
		svc := rawService(url)
		providertest.PerChunk(b, func() int { return rawDrain(b, svc) })
	})
}

func BenchmarkStreamToolCall(b *testing.B) {
	url := providertest.Replay(b, renderToolCall(benchChunks)) + "/v1"
	b.Run("loom", func(b *testing.B) {
		m := benchModel(b, url)
		providertest.PerChunk(b, func() int { return providertest.Drain(b, m, benchReq) })
	})
	b.Run("sdk", func(b *testing.B) {
		svc := rawService(url)
		providertest.PerChunk(b, func() int { return rawDrain(b, svc) })
	})
}

// BenchmarkFirstChunk measures the time from the call to the first chunk;
// loom's added latency is loom's figure minus the SDK's.
func BenchmarkFirstChunk(b *testing.B) {
	url := providertest.Replay(b, renderText(10)) + "/v1"
	b.Run("loom", func(b *testing.B) { providertest.ModelFirstChunk(b, benchModel(b, url), benchReq) })
	b.Run("sdk", func(b *testing.B) {
		svc := rawService(url)
		providertest.FirstChunk(b, func(first func()) {
			s := svc.NewStreaming(context.Background(), rawParams())
			if s.Next() {
				first()
			}
			s.Close()
		})
	})
}
