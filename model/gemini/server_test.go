package gemini_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/gemini"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// fakeGemini is a Gemini API server speaking its wire format:
// POST /v1beta/models/MODEL:streamGenerateContent?alt=sse answered with SSE
// "data:" lines of GenerateContentResponse objects (camelCase JSON, usage on
// every chunk, finishReason on the last), errors as {"error":{code,message,
// status}}.
type fakeGemini struct{ *providertest.Recorder }

func newFake(t testing.TB, answer func(w http.ResponseWriter, r *http.Request, i int)) *fakeGemini {
	return &fakeGemini{providertest.NewRecorder(t, providertest.Config{
		Route: func(r *http.Request) bool {
			return r.Method == http.MethodPost && r.URL.Path == "/v1beta/models/gemini-flash-latest:streamGenerateContent" && r.URL.Query().Get("alt") == "sse"
		},
		Reject: func(w http.ResponseWriter, status int, msg string) {
			grpcStatus := "INVALID_ARGUMENT"
			if status == http.StatusNotFound {
				grpcStatus = "NOT_FOUND"
			}
			errorBody(w, status, grpcStatus, msg)
		},
		Answer: answer,
	})}
}

func (f *fakeGemini) model(t testing.TB, opts ...model.ClientOption) *gemini.Model {
	opts = providertest.Options(f.URL()+"/", opts...)
	m, err := gemini.New("gemini-flash-latest", opts...)
	require.NoError(t, err)
	return m
}

func errorBody(w http.ResponseWriter, status int, grpcStatus, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%s,"status":%q}}`, status, providertest.JSONString(msg), grpcStatus)
}

type sse struct{ w http.ResponseWriter }

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

func (s sse) data(v string) {
	fmt.Fprintf(s.w, "data: %s\r\n\r\n", v)
	s.w.(http.Flusher).Flush()
}

// chunk sends one response with the given parts (JSON array elements),
// finish reason ("" for none) and running usage.
func (s sse) chunk(parts, finish string, u model.Usage) {
	fin := ""
	if finish != "" {
		fin = `,"finishReason":"` + finish + `"`
	}
	cached := ""
	if u.CachedInputTokens > 0 {
		cached = fmt.Sprintf(`,"cachedContentTokenCount":%d`, u.CachedInputTokens)
	}
	s.data(fmt.Sprintf(`{"candidates":[{"content":{"parts":[%s],"role":"model"}%s,"index":0}],"usageMetadata":{"promptTokenCount":%d,"candidatesTokenCount":%d,"totalTokenCount":%d%s,"promptTokensDetails":[{"modality":"TEXT","tokenCount":%d}]},"modelVersion":"gemini-3.8-flash","responseId":"resp-7Yx2"}`,
		parts, fin, u.InputTokens, u.OutputTokens, u.InputTokens+u.OutputTokens, cached, u.InputTokens))
}

func textPart(s string) string { return `{"text":` + providertest.JSONString(s) + `}` }

func callPart(c model.ToolCall) string {
	id := ""
	if c.ID != "" {
		id = `"id":` + providertest.JSONString(c.ID) + `,`
	}
	return `{"functionCall":{` + id + `"name":` + providertest.JSONString(c.Name) + `,"args":` + string(c.Arguments) + `}}`
}

// scenario answers a conformance scenario in Gemini's wire format. Gemini
// sends each function call whole, so the calls come in one chunk.
func scenario(s modeltest.Scenario) func(w http.ResponseWriter, r *http.Request, i int) {
	return func(w http.ResponseWriter, r *http.Request, i int) {
		if modeltest.WriteTransportFault(w, s, i) {
			return
		}
		switch s.Failure {
		case modeltest.RateLimitRetryAfter:
			if i == 0 {
				w.Header().Set("Retry-After", s.RetryAfter)
				errorBody(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).")
				return
			}
		case modeltest.RateLimitOnce:
			if i == 0 {
				w.Header().Set("Retry-After", "0")
				errorBody(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).")
				return
			}
		case modeltest.ServerErrorAlways:
			errorBody(w, http.StatusInternalServerError, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting")
			return
		case modeltest.Unauthorized:
			errorBody(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials: "+r.Header.Get("x-goog-api-key"))
			return
		}
		out := startSSE(w)
		pieces := providertest.Split(s.Text, 5)
		partial := model.Usage{InputTokens: s.Usage.InputTokens, CachedInputTokens: s.Usage.CachedInputTokens}
		switch s.Failure {
		case modeltest.Truncated:
			for _, p := range pieces[:len(pieces)/2] {
				out.chunk(textPart(p), "", partial)
			}
			panic(http.ErrAbortHandler)
		case modeltest.EndsEarly:
			for _, p := range pieces[:len(pieces)/2] {
				out.chunk(textPart(p), "", partial)
			}
			return // a clean end, but no finishReason
		case modeltest.Stall:
			out.chunk(textPart(pieces[0]), "", partial)
			<-r.Context().Done()
			return
		case modeltest.MalformedEvent:
			out.chunk(textPart(pieces[0]), "", partial)
			out.data(modeltest.MalformedData)
		case modeltest.MaxTokens:
			for _, p := range pieces[:len(pieces)/2] {
				out.chunk(textPart(p), "", partial)
			}
			out.chunk(textPart(""), "MAX_TOKENS", s.Usage)
			return
		case modeltest.MaxTokensInToolCall:
			// Gemini sends calls whole: the limit shows only in the reason.
			out.chunk(callPart(s.ToolCalls[0]), "MAX_TOKENS", s.Usage)
			return
		}
		for _, p := range pieces {
			out.chunk(textPart(p), "", partial)
		}
		if len(s.ToolCalls) > 0 {
			parts := ""
			for i, c := range s.ToolCalls {
				if i > 0 {
					parts += ","
				}
				parts += callPart(c)
			}
			out.chunk(parts, "", partial)
		}
		out.chunk(textPart(""), "STOP", s.Usage)
	}
}
