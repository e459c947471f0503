package gemini_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/gemini"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/loomwork/loom/model/modeltest"
)

// fakeEmbed is a Gemini API server for POST
// /v1beta/models/MODEL:batchEmbedContents, answering
// {"embeddings":[{"values":[…]}]} in request order. Element j of a text's
// vector is len(text)+j; the size is outputDimensionality when sent, else
// dims.
type fakeEmbed struct {
	*providertest.Recorder
	dims int
}

func newEmbedFake(t testing.TB, modelName string, dims int, fail func(w http.ResponseWriter, i int) bool) *fakeEmbed {
	f := &fakeEmbed{dims: dims}
	f.Recorder = providertest.NewRecorder(t, providertest.Config{
		Route: func(r *http.Request) bool {
			return r.Method == http.MethodPost && r.URL.Path == "/v1beta/models/"+modelName+":batchEmbedContents"
		},
		Reject: func(w http.ResponseWriter, status int, msg string) { errorBody(w, status, "NOT_FOUND", msg) },
		Answer: func(w http.ResponseWriter, _ *http.Request, i int) {
			if fail != nil && fail(w, i) {
				return
			}
			f.answer(w, f.Body(i))
		},
	})
	return f
}

func (f *fakeEmbed) answer(w http.ResponseWriter, body map[string]any) {
	var embs []string
	for _, r := range body["requests"].([]any) {
		req := r.(map[string]any)
		dims := f.dims
		if d, ok := req["outputDimensionality"]; ok {
			dims = int(d.(float64))
		}
		text := req["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string)
		v := make([]string, dims)
		for j := range v {
			v[j] = fmt.Sprint(len(text) + j)
		}
		embs = append(embs, `{"values":[`+strings.Join(v, ",")+`]}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	fmt.Fprintf(w, `{"embeddings":[%s]}`, strings.Join(embs, ","))
}

func (f *fakeEmbed) embedder(t testing.TB, name string, eo gemini.EmbedConfig) *gemini.Embedder {
	t.Helper()
	e, err := gemini.NewEmbedder(name, eo,
		model.WithAPIKey(modeltest.TestKey),
		model.WithBaseURL(f.URL()+"/"),
		model.WithMaxRetries(2),
		model.WithRetryBackoff(time.Millisecond, 5*time.Millisecond),
	)
	require.NoError(t, err)
	return e
}

func textsOf(t *testing.T, body map[string]any) []string {
	t.Helper()
	var out []string
	for _, r := range body["requests"].([]any) {
		req := r.(map[string]any)
		require.Equal(t, "models/gemini-embedding-001", req["model"])
		out = append(out, req["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string))
	}
	return out
}

func TestEmbedBatches(t *testing.T) {
	f := newEmbedFake(t, "gemini-embedding-001", 3072, nil)
	e := f.embedder(t, "", gemini.EmbedConfig{BatchSize: 2, TaskType: "RETRIEVAL_DOCUMENT"})
	require.Equal(t, "gemini:gemini-embedding-001", e.Name())
	require.Equal(t, 3072, e.Dimensions())

	texts := []string{"a", "bb", "ccc"}
	vs, err := e.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Equal(t, 2, f.Requests())
	require.Equal(t, []string{"a", "bb"}, textsOf(t, f.Body(0)))
	require.Equal(t, []string{"ccc"}, textsOf(t, f.Body(1)))
	for i, v := range vs {
		require.Len(t, v, 3072)
		require.Equal(t, float32(len(texts[i])), v[0])
	}
	req := f.Body(0)["requests"].([]any)[0].(map[string]any)
	require.Equal(t, "RETRIEVAL_DOCUMENT", req["taskType"])
	require.NotContains(t, req, "outputDimensionality", "the model's own size is not sent")
	require.Equal(t, modeltest.TestKey, f.Header(0).Get("X-Goog-Api-Key"))
	require.Positive(t, e.Usage().InputTokens, "usage is estimated")
	require.Positive(t, e.Cost())
}

func TestEmbedDimensions(t *testing.T) {
	f := newEmbedFake(t, "gemini-embedding-001", 3072, nil)
	e := f.embedder(t, "models/gemini-embedding-001", gemini.EmbedConfig{Dimensions: 768})
	vs, err := e.Embed(context.Background(), []string{"hello"})
	require.NoError(t, err)
	require.Len(t, vs[0], 768)
	req := f.Body(0)["requests"].([]any)[0].(map[string]any)
	require.Equal(t, 768.0, req["outputDimensionality"])
}

func TestEmbedWrongSize(t *testing.T) {
	f := newEmbedFake(t, "text-embedding-004", 768, func(w http.ResponseWriter, _ int) bool {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"embeddings":[{"values":[1,2,3]}]}`)
		return true
	})
	e := f.embedder(t, "text-embedding-004", gemini.EmbedConfig{})
	_, err := e.Embed(context.Background(), []string{"x"})
	require.ErrorIs(t, err, model.ErrInvalidRequest)
	require.ErrorContains(t, err, "text-embedding-004 returned a vector of 3 dimensions, not 768")
}

func TestEmbedRetriesRateLimit(t *testing.T) {
	f := newEmbedFake(t, "gemini-embedding-001", 3072, func(w http.ResponseWriter, i int) bool {
		if i == 0 {
			errorBody(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).")
			return true
		}
		return false
	})
	e := f.embedder(t, "", gemini.EmbedConfig{})
	vs, err := e.Embed(context.Background(), []string{"retry me"})
	require.NoError(t, err)
	require.Len(t, vs, 1)
	require.Equal(t, 2, f.Requests(), "the 429 was retried once")
	require.Equal(t, f.Body(0), f.Body(1))
}

func TestEmbedRateLimitExhausted(t *testing.T) {
	f := newEmbedFake(t, "gemini-embedding-001", 3072, func(w http.ResponseWriter, _ int) bool {
		errorBody(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).")
		return true
	})
	e := f.embedder(t, "", gemini.EmbedConfig{})
	_, err := e.Embed(context.Background(), []string{"x"})
	require.ErrorIs(t, err, model.ErrRateLimited)
	var ae *model.APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, 3, f.Requests())
	require.Zero(t, e.Usage().InputTokens, "a failed call counts nothing")
}

func TestNewEmbedderErrors(t *testing.T) {
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "")
	for _, tc := range []struct {
		name string
		mdl  string
		eo   gemini.EmbedConfig
		is   error
		msg  string
	}{
		{"unknown size", "my-embedder", gemini.EmbedConfig{}, model.ErrInvalidRequest, "set EmbedConfig.Dimensions"},
		{"negative dimensions", "", gemini.EmbedConfig{Dimensions: -1}, model.ErrInvalidOption, "Dimensions=-1"},
		{"negative batch", "", gemini.EmbedConfig{BatchSize: -1}, model.ErrInvalidOption, "BatchSize=-1"},
		{"missing key", "", gemini.EmbedConfig{}, model.ErrMissingKey, "GOOGLE_API_KEY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gemini.NewEmbedder(tc.mdl, tc.eo)
			require.ErrorIs(t, err, tc.is)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

func TestEmbedSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background()) //nolint:errcheck // test cleanup
	ctx, parent := tp.Tracer("test").Start(context.Background(), "run")
	f := newEmbedFake(t, "gemini-embedding-001", 3072, nil)
	e := f.embedder(t, "", gemini.EmbedConfig{Dimensions: 768})
	_, err := e.Embed(ctx, []string{"one"})
	require.NoError(t, err)
	parent.End()
	spans := rec.Ended()
	require.Len(t, spans, 2)
	attrs := map[attribute.Key]attribute.Value{}
	for _, a := range spans[0].Attributes() {
		attrs[a.Key] = a.Value
	}
	require.Equal(t, "embeddings gemini-embedding-001", spans[0].Name())
	require.Equal(t, "gemini", attrs["gen_ai.provider.name"].AsString())
	require.Equal(t, int64(768), attrs["gen_ai.embeddings.dimension.count"].AsInt64())
	require.True(t, attrs["loom.usage.estimated"].AsBool())
}
