package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/openai"
)

func Example() {
	// A stand-in for https://api.openai.com/v1, answering as OpenAI does.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := startSSE(w)
		s.role()
		s.text("Hello")
		s.text(", world.")
		s.finish("stop")
		s.usage(model.Usage{InputTokens: 12, OutputTokens: 4})
		s.done()
	}))
	defer srv.Close()

	m, err := openai.New("gpt-5.4-mini", model.WithAPIKey("sk-example"), model.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := model.Generate(context.Background(), m, model.Request{
		Messages: []model.Message{model.UserMessage("Say hello.")},
		Options:  model.Options{Temperature: model.Ptr(0.2)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Message.Text())
	fmt.Println(resp.FinishReason, resp.Usage)
	// Output:
	// Hello, world.
	// stop in=12 out=4 cached=0
}

func ExampleNewFor() {
	// Ollama needs no key; OLLAMA_BASE_URL overrides the address.
	m, err := openai.NewFor(openai.OllamaPreset(), "qwen3:8b", model.WithBaseURL("http://localhost:11434"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Provider(), m.Name(), m.BaseURL())
	// Output: ollama qwen3:8b http://localhost:11434/v1
}

// A provider asking for a wait longer than WithMaxRetryWait fails the call
// at once, with an error saying what was asked and what the cap is.
func ExampleNew_maxRetryWait() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		apiError(w, http.StatusTooManyRequests, "requests", `"rate_limit_exceeded"`, "Rate limit reached.")
	}))
	defer srv.Close()

	m, err := openai.New("gpt-5.4-mini", model.WithAPIKey("sk-example"), model.WithBaseURL(srv.URL+"/v1"),
		model.WithMaxRetryWait(10*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = model.Generate(context.Background(), m, model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	var apiErr *model.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.RetryAfter, apiErr.MaxRetryWait, errors.Is(err, model.ErrRateLimited))
	}
	// Output:
	// 429 1h0m0s 10s true
}
