package gemini_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/gemini"
	"github.com/loomwork/loom/model/internal/providertest"
	"google.golang.org/genai"
)

// Benchmarks against a local server replaying a Gemini SSE stream: loom's
// provider beside the raw SDK, so the difference is loom's cost.
//
//	go test -run '^$' -bench . -benchmem ./model/gemini/

const benchChunks = 500

func renderText(n int) []byte {
	rec := httptest.NewRecorder()
	s := sse{rec}
	for i := range n {
		s.chunk(textPart(fmt.Sprintf("word%d ", i)), "", model.Usage{InputTokens: 100, OutputTokens: int64(i)})
	}
	s.chunk(textPart(""), "STOP", model.Usage{InputTokens: 100, OutputTokens: int64(n)})
	return rec.Body.Bytes()
}

// renderToolCall is one whole function call with a long argument, as
// Gemini sends it.
func renderToolCall(n int) []byte {
	arg := ""
	for i := range n {
		arg += fmt.Sprintf("p%03d", i)
	}
	rec := httptest.NewRecorder()
	s := sse{rec}
	s.chunk(`{"functionCall":{"name":"echo","args":{"text":"`+arg+`"}}}`, "STOP", model.Usage{InputTokens: 100, OutputTokens: int64(n)})
	return rec.Body.Bytes()
}

func benchModel(b *testing.B, url string) *gemini.Model {
	m, err := gemini.New("gemini-flash-latest", model.WithAPIKey("k"), model.WithBaseURL(url))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func rawModels(b *testing.B, url string) *genai.Models {
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url}})
	if err != nil {
		b.Fatal(err)
	}
	return c.Models
}

var benchReq = model.Request{Messages: []model.Message{model.UserMessage("hi")}}

func rawContents() []*genai.Content {
	return []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}
}

func rawDrain(b *testing.B, ms *genai.Models) int {
	n := 0
	for _, err := range ms.GenerateContentStream(context.Background(), "gemini-flash-latest", rawContents(), &genai.GenerateContentConfig{}) {
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
	return n
}

func BenchmarkStreamText(b *testing.B) {
	url := providertest.Replay(b, renderText(benchChunks)) + "/"
	b.Run("loom", func(b *testing.B) {
		m := benchModel(b, url)
		providertest.PerChunk(b, func() int { return providertest.Drain(b, m, benchReq) })
	})
	b.Run("sdk", func(b *testing.B) {
		ms := rawModels(b, url)
		providertest.PerChunk(b, func() int { return rawDrain(b, ms) })
	})
}

func BenchmarkStreamToolCall(b *testing.B) {
	url := providertest.Replay(b, renderToolCall(benchChunks)) + "/"
	b.Run("loom", func(b *testing.B) {
		m := benchModel(b, url)
		providertest.PerChunk(b, func() int { return providertest.Drain(b, m, benchReq) })
	})
	b.Run("sdk", func(b *testing.B) {
		ms := rawModels(b, url)
		providertest.PerChunk(b, func() int { return rawDrain(b, ms) })
	})
}

func BenchmarkFirstChunk(b *testing.B) {
	url := providertest.Replay(b, renderText(10)) + "/"
	b.Run("loom", func(b *testing.B) { providertest.ModelFirstChunk(b, benchModel(b, url), benchReq) })
	b.Run("sdk", func(b *testing.B) {
		ms := rawModels(b, url)
		providertest.FirstChunk(b, func(first func()) {
			for _, err := range ms.GenerateContentStream(context.Background(), "gemini-flash-latest", rawContents(), &genai.GenerateContentConfig{}) {
				if err != nil {
					b.Fatal(err)
				}
				first()
				break
			}
		})
	})
}
