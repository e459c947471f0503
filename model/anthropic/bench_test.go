package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/anthropic"
	"github.com/loomwork/loom/model/internal/providertest"
)

// Benchmarks against a local server replaying a Messages API stream: loom's
// provider beside the raw SDK, so the difference is loom's cost.
//
//	go test -run '^$' -bench . -benchmem ./model/anthropic/

const benchChunks = 500

func renderText(n int) []byte {
	rec := httptest.NewRecorder()
	s := sse{rec}
	s.messageStart(model.Usage{InputTokens: 100})
	pieces := make([]string, n)
	for i := range pieces {
		pieces[i] = fmt.Sprintf("word%d ", i)
	}
	s.textBlock(0, pieces)
	s.messageDelta("end_turn", int64(n))
	s.messageStop()
	return rec.Body.Bytes()
}

func renderToolCall(n int) []byte {
	args := `{"text":"`
	for i := range n {
		args += fmt.Sprintf("p%03d", i)
	}
	args += `"}`
	rec := httptest.NewRecorder()
	s := sse{rec}
	s.messageStart(model.Usage{InputTokens: 100})
	s.toolBlock(0, model.ToolCall{ID: "toolu_1", Name: "echo", Arguments: json.RawMessage(args)}, (len(args)+n-1)/n)
	s.messageDelta("tool_use", int64(n))
	s.messageStop()
	return rec.Body.Bytes()
}

func benchModel(b *testing.B, url string) *anthropic.Model {
	m, err := anthropic.New("claude-sonnet-5-5", model.WithAPIKey("k"), model.WithBaseURL(url))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func rawService(url string) sdk.MessageService {
	return sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(url), option.WithAPIKey("k")).Messages
}

func rawParams() sdk.MessageNewParams {
	return sdk.MessageNewParams{Model: "claude-sonnet-5-5", MaxTokens: 1024, Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("hi"))}}
}

var benchReq = model.Request{Messages: []model.Message{model.UserMessage("hi")}}

func rawDrain(b *testing.B, svc sdk.MessageService) int {
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
	url := providertest.Replay(b, renderText(benchChunks))
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
	url := providertest.Replay(b, renderToolCall(benchChunks))
	b.Run("loom", func(b *testing.B) {
		m := benchModel(b, url)
		providertest.PerChunk(b, func() int { return providertest.Drain(b, m, benchReq) })
	})
	b.Run("sdk", func(b *testing.B) {
		svc := rawService(url)
		providertest.PerChunk(b, func() int { return rawDrain(b, svc) })
	})
}

func BenchmarkFirstChunk(b *testing.B) {
	url := providertest.Replay(b, renderText(10))
	b.Run("loom", func(b *testing.B) { providertest.ModelFirstChunk(b, benchModel(b, url), benchReq) })
	b.Run("sdk", func(b *testing.B) {
		svc := rawService(url)
		providertest.FirstChunk(b, func(first func()) {
			s := svc.NewStreaming(context.Background(), rawParams())
			// loom's first chunk is the first text delta, the SDK's third
			// event (message_start, content_block_start, then the delta).
			for i := 0; i < 3 && s.Next(); i++ {
			}
			first()
			s.Close()
		})
	})
}
