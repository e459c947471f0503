package openai_test

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
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/model/openai"
)

// fakeEmbeddings is an embeddings server speaking OpenAI's wire format
// (POST /v1/embeddings). Element j of a text's vector is len(text)+j, so
// tests can check the order; usage is one token per input byte. It lists
// the vectors in reverse order of index, as a server may.
type fakeEmbeddings struct {
	*providertest.Recorder
	dims int // the vector size answered; 0: the "dimensions" asked for
}

// newEmbedFake starts the fake; fail, when it returns true for request i,
// has written an error answer instead.
func newEmbedFake(t testing.TB, dims int, fail func(w http.ResponseWriter, i int) bool) *fakeEmbeddings {
	f := &fakeEmbeddings{dims: dims}
	f.Recorder = providertest.NewRecorder(t, providertest.Config{
		Route: func(r *http.Request) bool {
			return r.Method == http.MethodPost && r.URL.Path == "/v1/embeddings"
		},
		Reject: func(w http.ResponseWriter, status int, msg string) { http.Error(w, msg, status) },
		Answer: func(w http.ResponseWriter, _ *http.Request, i int) {
			if fail != nil && fail(w, i) {
				return
			}
			f.answer(w, f.Body(i))
		},
	})
	return f
}

func (f *fakeEmbeddings) answer(w http.ResponseWriter, body map[string]any) {
	dims := f.dims
	if dims == 0 {
		dims = int(body["dimensions"].(float64))
	}
	inputs := body["input"].([]any)
	var data []string
	tokens := 0
	for k := len(inputs) - 1; k >= 0; k-- {
		text := inputs[k].(string)
		v := make([]string, dims)
		for j := range v {
			v[j] = fmt.Sprint(len(text) + j)
		}
		tokens += len(text)
		data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%s]}`, k, strings.Join(v, ",")))
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"object":"list","data":[%s],"model":%q,"usage":{"prompt_tokens":%d,"total_tokens":%d}}`,
		strings.Join(data, ","), body["model"], tokens, tokens)
}

func rateLimited(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After-Ms", "1")
	w.WriteHeader(http.StatusTooManyRequests)
	fmt.Fprint(w, `{"error":{"message":"Rate limit reached for text-embedding-3-small","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
}

func (f *fakeEmbeddings) embedder(t testing.TB, p openai.Preset, name string, eo openai.EmbedConfig) *openai.Embedder {
	t.Helper()
	e, err := openai.NewEmbedderFor(p, name, eo,
		model.WithAPIKey(modeltest.TestKey),
		model.WithBaseURL(f.URL()+"/v1"),
		model.WithMaxRetries(2),
		model.WithRetryBackoff(time.Millisecond, time.Millisecond),
	)
	require.NoError(t, err)
	return e
}

func TestEmbedBatches(t *testing.T) {
	f := newEmbedFake(t, 1536, nil)
	e := f.embedder(t, openai.OpenAIPreset(), "", openai.EmbedConfig{BatchSize: 2})
	require.Equal(t, "openai:text-embedding-3-small", e.Name())
	require.Equal(t, 1536, e.Dimensions())

	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vs, err := e.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Equal(t, 3, f.Requests(), "5 texts in batches of 2")
	require.Len(t, vs, 5)
	for i, v := range vs {
		require.Len(t, v, 1536)
		require.Equal(t, float32(len(texts[i])), v[0], "vector %d is in input order", i)
		require.Equal(t, float32(len(texts[i])+1535), v[1535])
	}
	for i, want := range [][]any{{"a", "bb"}, {"ccc", "dddd"}, {"eeeee"}} {
		body := f.Body(i)
		require.Equal(t, want, body["input"])
		require.Equal(t, "text-embedding-3-small", body["model"])
		require.Equal(t, "float", body["encoding_format"])
		require.NotContains(t, body, "dimensions", "the model's own size is not sent")
		require.Equal(t, "Bearer "+modeltest.TestKey, f.Header(i).Get("Authorization"))
	}
	require.Equal(t, model.Usage{InputTokens: 15}, e.Usage())
	require.InDelta(t, 15*0.02/1e6, e.Cost(), 1e-15)

	vs, err = e.Embed(context.Background(), nil)
	require.NoError(t, err)
	require.Empty(t, vs)
	require.Equal(t, 3, f.Requests(), "no texts, no request")
}

func TestEmbedDimensions(t *testing.T) {
	f := newEmbedFake(t, 0, nil)
	e := f.embedder(t, openai.OpenAIPreset(), "text-embedding-3-large", openai.EmbedConfig{Dimensions: 256})
	require.Equal(t, 256, e.Dimensions())
	vs, err := e.Embed(context.Background(), []string{"hello"})
	require.NoError(t, err)
	require.Len(t, vs[0], 256)
	require.Equal(t, 256.0, f.Body(0)["dimensions"])
	require.Equal(t, "text-embedding-3-large", f.Body(0)["model"])
}

func TestEmbedServerIgnoresDimensions(t *testing.T) {
	f := newEmbedFake(t, 768, nil)
	e := f.embedder(t, openai.OllamaPreset(), "nomic-embed-text", openai.EmbedConfig{Dimensions: 256})
	_, err := e.Embed(context.Background(), []string{"hello"})
	require.ErrorIs(t, err, model.ErrInvalidRequest)
	require.ErrorContains(t, err, "nomic-embed-text returned vectors of 768 dimensions, not 256")
}

func TestEmbedRetriesRateLimit(t *testing.T) {
	f := newEmbedFake(t, 1536, func(w http.ResponseWriter, i int) bool {
		if i == 0 {
			rateLimited(w)
			return true
		}
		return false
	})
	e := f.embedder(t, openai.OpenAIPreset(), "", openai.EmbedConfig{})
	vs, err := e.Embed(context.Background(), []string{"retry me"})
	require.NoError(t, err)
	require.Len(t, vs, 1)
	require.Equal(t, 2, f.Requests(), "the 429 was retried once")
	require.Equal(t, f.Body(0), f.Body(1), "the retry sends the same request")
}

func TestEmbedRateLimitExhausted(t *testing.T) {
	f := newEmbedFake(t, 1536, func(w http.ResponseWriter, _ int) bool { rateLimited(w); return true })
	e := f.embedder(t, openai.OpenAIPreset(), "", openai.EmbedConfig{})
	_, err := e.Embed(context.Background(), []string{"x"})
	require.ErrorIs(t, err, model.ErrRateLimited)
	var ae *model.APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, 429, ae.StatusCode)
	require.Equal(t, 3, f.Requests(), "one try and two retries")
	require.NotContains(t, err.Error(), modeltest.TestKey)
}

func TestEmbedAuthError(t *testing.T) {
	f := newEmbedFake(t, 1536, func(w http.ResponseWriter, _ int) bool {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, modeltest.TestKey)
		return true
	})
	e := f.embedder(t, openai.OpenAIPreset(), "", openai.EmbedConfig{})
	_, err := e.Embed(context.Background(), []string{"x"})
	require.ErrorIs(t, err, model.ErrAuth)
	require.NotContains(t, err.Error(), modeltest.TestKey, "the key is redacted")
	require.Equal(t, 1, f.Requests(), "a 401 is not retried")
}

func TestEmbedCancelled(t *testing.T) {
	f := newEmbedFake(t, 1536, nil)
	e := f.embedder(t, openai.OpenAIPreset(), "", openai.EmbedConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Embed(ctx, []string{"x"})
	require.ErrorIs(t, err, context.Canceled)
}

func TestEmbedOllamaPreset(t *testing.T) {
	f := newEmbedFake(t, 768, nil)
	e := f.embedder(t, openai.OllamaPreset(), "", openai.EmbedConfig{})
	require.Equal(t, "ollama:nomic-embed-text", e.Name())
	require.Equal(t, 768, e.Dimensions())
	_, err := e.Embed(context.Background(), []string{"local"})
	require.NoError(t, err)
	require.Zero(t, e.Cost(), "local models are free")
	tagged := f.embedder(t, openai.OllamaPreset(), "mxbai-embed-large:latest", openai.EmbedConfig{})
	require.Equal(t, 1024, tagged.Dimensions(), "a tag does not hide the model's size")
}

func TestNewEmbedderErrors(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	for _, tc := range []struct {
		name string
		p    openai.Preset
		mdl  string
		eo   openai.EmbedConfig
		is   error
		msg  string
	}{
		{"unknown size", openai.OllamaPreset(), "my-embedder", openai.EmbedConfig{}, model.ErrInvalidRequest, "set EmbedConfig.Dimensions"},
		{"no default model", openai.CompatiblePreset(), "", openai.EmbedConfig{}, model.ErrInvalidRequest, "name the embedding model"},
		{"negative dimensions", openai.OllamaPreset(), "", openai.EmbedConfig{Dimensions: -1}, model.ErrInvalidOption, "Dimensions=-1"},
		{"negative batch", openai.OllamaPreset(), "", openai.EmbedConfig{BatchSize: -5}, model.ErrInvalidOption, "BatchSize=-5"},
		{"missing key", openai.OpenAIPreset(), "", openai.EmbedConfig{}, model.ErrMissingKey, "OPENAI_API_KEY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openai.NewEmbedderFor(tc.p, tc.mdl, tc.eo)
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

	f := newEmbedFake(t, 1536, nil)
	e := f.embedder(t, openai.OpenAIPreset(), "", openai.EmbedConfig{BatchSize: 1})
	_, err := e.Embed(ctx, []string{"one", "two"})
	require.NoError(t, err)
	parent.End()

	spans := rec.Ended()
	require.Len(t, spans, 2)
	s := spans[0]
	require.Equal(t, "embeddings text-embedding-3-small", s.Name())
	attrs := map[attribute.Key]attribute.Value{}
	for _, a := range s.Attributes() {
		attrs[a.Key] = a.Value
	}
	require.Equal(t, "embeddings", attrs["gen_ai.operation.name"].AsString())
	require.Equal(t, "openai", attrs["gen_ai.provider.name"].AsString())
	require.Equal(t, "text-embedding-3-small", attrs["gen_ai.request.model"].AsString())
	require.Equal(t, int64(1536), attrs["gen_ai.embeddings.dimension.count"].AsInt64())
	require.Equal(t, int64(6), attrs["gen_ai.usage.input_tokens"].AsInt64())
	require.Equal(t, int64(2), attrs["loom.embeddings.batches"].AsInt64())
	require.InDelta(t, 6*0.02/1e6, attrs["loom.cost.usd"].AsFloat64(), 1e-15)
}
