package weaviate_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	wv "github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/vectortest"
	"github.com/loomwork/loom/vector/weaviate"
)

// WeaviateURLEnv names a real Weaviate server for the tests against one;
// .ci/weaviate.sh builds weaviate-server and starts one.
const WeaviateURLEnv = "LOOM_TEST_WEAVIATE_URL"

// realServer returns a client of the real server named by WeaviateURLEnv
// and a class-name prefix no earlier run used, or skips (fails under CI,
// which starts one). Every class with the prefix is deleted when t ends.
func realServer(t *testing.T) (*wv.Client, string) {
	t.Helper()
	raw := os.Getenv(WeaviateURLEnv)
	if raw == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: .ci/vector.sh starts a Weaviate server (.ci/weaviate.sh) and sets it", WeaviateURLEnv)
		}
		t.Skipf("%s is not set: start weaviate-server (see .ci/weaviate.sh) and set it to http://127.0.0.1:PORT", WeaviateURLEnv)
	}
	u, err := url.Parse(raw)
	require.NoError(t, err, "%s=%q", WeaviateURLEnv, raw)
	// A transport of the test's own, whose idle connections are closed
	// when it ends (goleak would find their goroutines).
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := wv.NewClient(wv.Config{Host: u.Host, Scheme: u.Scheme, ConnectionClient: &http.Client{Transport: tr}})
	require.NoError(t, err)
	prefix := fmt.Sprintf("Loom%d", time.Now().UnixNano())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		schema, err := c.Schema().Getter().Do(ctx)
		if err != nil {
			t.Logf("listing classes to delete: %v", err)
			return
		}
		for _, cl := range schema.Classes {
			if len(cl.Class) >= len(prefix) && cl.Class[:len(prefix)] == prefix {
				if err := c.Schema().ClassDeleter().WithClassName(cl.Class).Do(ctx); err != nil {
					t.Logf("deleting class %s: %v", cl.Class, err)
				}
			}
		}
	})
	return c, prefix
}

// TestConformanceRealServer runs the conformance suite against a real
// Weaviate server, each store on a class of its own.
func TestConformanceRealServer(t *testing.T) {
	c, prefix := realServer(t)
	var n atomic.Int64
	open := func(t *testing.T, dims int) vector.Store {
		s, err := weaviate.Open(context.Background(), weaviate.Config{Client: c, Class: fmt.Sprintf("%s_%d", prefix, n.Add(1)),
			Dimensions: dims, Embedder: vectortest.Embedder(dims)})
		require.NoError(t, err)
		return s
	}
	reopen := func(t *testing.T, s vector.Store) vector.Store {
		require.NoError(t, s.Close())
		s2, err := weaviate.Open(context.Background(), weaviate.Config{Client: c, Class: fmt.Sprintf("%s_%d", prefix, n.Load()),
			Dimensions: vectortest.Dims, Embedder: vectortest.Embedder(vectortest.Dims)})
		require.NoError(t, err)
		return s2
	}
	vectortest.Run(t, open, vectortest.Options{Reopen: reopen})
}

// WeaviateGRPCEnv names the gRPC address (host:port) of the same server;
// .ci/weaviate.sh sets it.
const WeaviateGRPCEnv = "LOOM_TEST_WEAVIATE_GRPC"

// grpcChildEnv marks the child process TestConformanceRealServerGRPC
// runs the suite in.
const grpcChildEnv = "LOOM_TEST_WEAVIATE_GRPC_CHILD"

// TestConformanceRealServerGRPC runs the suite with a client configured
// with the server's gRPC API, which the client then uses for batches. The
// client has no Close, and its gRPC connection's goroutines live until the
// process ends, so the suite runs in a child process (this test binary
// again), whose goroutines goleak does not check; this process checks its
// own as always.
func TestConformanceRealServerGRPC(t *testing.T) {
	addr := os.Getenv(WeaviateGRPCEnv)
	if os.Getenv(grpcChildEnv) == "" {
		realServer(t) // skips, or fails under CI, without a server
		if addr == "" {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not set: .ci/weaviate.sh sets it with %s", WeaviateGRPCEnv, WeaviateURLEnv)
			}
			t.Skipf("%s is not set: set it to the host:port of the server's gRPC API", WeaviateGRPCEnv)
		}
		cmd := exec.Command(os.Args[0], "-test.run", "^TestConformanceRealServerGRPC$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), grpcChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "the suite over gRPC, in a child process:\n%s", out)
		require.Contains(t, string(out), "--- PASS: TestConformanceRealServerGRPC", "the child ran the suite")
		return
	}
	_, prefix := realServer(t)
	u, err := url.Parse(os.Getenv(WeaviateURLEnv))
	require.NoError(t, err)
	c, err := wv.NewClient(wv.Config{Host: u.Host, Scheme: u.Scheme, GrpcConfig: &grpc.Config{Host: addr}})
	require.NoError(t, err)
	var n atomic.Int64
	open := func(t *testing.T, dims int) vector.Store {
		s, err := weaviate.Open(context.Background(), weaviate.Config{Client: c, Class: fmt.Sprintf("%s_G%d", prefix, n.Add(1)),
			Dimensions: dims, Embedder: vectortest.Embedder(dims)})
		require.NoError(t, err)
		return s
	}
	vectortest.Run(t, open, vectortest.Options{})
}

// TestRealServerFindings checks, against a real Weaviate, each way the
// server was found to differ from what a store must do, and that the store
// hides or types it.
func TestRealServerFindings(t *testing.T) {
	c, prefix := realServer(t)
	ctx := context.Background()
	var n atomic.Int64
	open := func(t *testing.T) *weaviate.Store {
		s, err := weaviate.Open(ctx, weaviate.Config{Client: c, Class: fmt.Sprintf("%s_%d", prefix, n.Add(1)), Dimensions: 2})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	ids := func(ms []vector.Match) []string {
		out := make([]string, len(ms))
		for i, m := range ms {
			out[i] = m.ID
		}
		return out
	}
	v := []float32{1, 0}

	t.Run("delete is exact on white space", func(t *testing.T) {
		s := open(t)
		require.NoError(t, s.Upsert(ctx,
			vector.Document{ID: "a", Text: "a", Vector: v},
			vector.Document{ID: " a", Text: "a", Vector: v},
			vector.Document{ID: "a ", Text: "a", Vector: v},
			vector.Document{ID: "A", Text: "a", Vector: v}))
		require.NoError(t, s.Delete(ctx, "a"))
		ms, err := s.Search(ctx, vector.Query{Vector: v, K: 10})
		require.NoError(t, err)
		require.ElementsMatch(t, []string{" a", "a ", "A"}, ids(ms))
	})

	t.Run("filters are exact on white space", func(t *testing.T) {
		s := open(t)
		var docs []vector.Document
		for i, md := range []map[string]any{
			{"lang": "go ", "tags": []string{" t1 "}},
			{"lang": " go", "tags": []string{"t1 "}},
			{"lang": "go", "tags": []string{"t1"}},
			{"lang": "Go", "tags": []string{"T1"}},
		} {
			// The padded values are the closest, so the server's trimmed
			// comparison ranks them first.
			docs = append(docs, vector.Document{ID: fmt.Sprint("d", i), Text: "t", Vector: []float32{1, float32(i) / 10}, Metadata: md})
		}
		require.NoError(t, s.Upsert(ctx, docs...))
		for _, tc := range []struct {
			f    *vector.Filter
			k    int
			want []string
		}{
			{vector.Eq("lang", "go"), 1, []string{"d2"}},
			{vector.Eq("lang", "go"), 10, []string{"d2"}},
			{vector.Eq("lang", "go "), 10, []string{"d0"}},
			{vector.Eq("tags", "t1"), 1, []string{"d2"}},
			{vector.Eq("tags", " t1 "), 10, []string{"d0"}},
			{vector.In("lang", "Go", " go"), 10, []string{"d1", "d3"}},
		} {
			ms, err := s.Search(ctx, vector.Query{Vector: v, K: tc.k, Filter: tc.f})
			require.NoError(t, err)
			require.ElementsMatch(t, tc.want, ids(ms), "filter %v, K %d", tc.f, tc.k)
		}
	})

	t.Run("property names differing only in case", func(t *testing.T) {
		s := open(t)
		require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "t", Vector: v, Metadata: map[string]any{"fooBar": 1.0}}))
		err := s.Upsert(ctx, vector.Document{ID: "b", Text: "t", Vector: v, Metadata: map[string]any{"foobar": 2.0}})
		require.ErrorIs(t, err, vector.ErrInvalidDocument)
		require.ErrorContains(t, err, `"foobar"`)
		require.ErrorContains(t, err, `"fooBar"`)

		// A second store on the same class, which has not seen fooBar
		// yet, learns of it from the server's refusal.
		s2, err := weaviate.Open(ctx, weaviate.Config{Client: c, Class: fmt.Sprintf("%s_%d", prefix, n.Load()), Dimensions: 2})
		require.NoError(t, err)
		require.NoError(t, s.Upsert(ctx, vector.Document{ID: "c", Text: "t", Vector: v, Metadata: map[string]any{"later": true}}))
		err = s2.Upsert(ctx, vector.Document{ID: "d", Text: "t", Vector: v, Metadata: map[string]any{"LATER": true}})
		require.ErrorIs(t, err, vector.ErrInvalidDocument)
		require.ErrorContains(t, err, `"LATER"`)
	})

	t.Run("class names differing only in case", func(t *testing.T) {
		name := fmt.Sprintf("%s_ProbeNa", prefix)
		_, err := weaviate.Open(ctx, weaviate.Config{Client: c, Class: name, Dimensions: 2})
		require.NoError(t, err)
		_, err = weaviate.Open(ctx, weaviate.Config{Client: c, Class: fmt.Sprintf("%s_ProbeNA", prefix), Dimensions: 2})
		require.ErrorIs(t, err, weaviate.ErrConfig)
		require.ErrorContains(t, err, "ProbeNA")
		require.ErrorContains(t, err, fmt.Sprintf("existing class %q", name))
	})

	t.Run("K above the server's maximum", func(t *testing.T) {
		s := open(t)
		require.NoError(t, s.Upsert(ctx, vector.Document{ID: "a", Text: "t", Vector: v}))
		_, err := s.Search(ctx, vector.Query{Vector: v, K: weaviate.MaxK + 1})
		require.ErrorIs(t, err, vector.ErrInvalidQuery)
		ms, err := s.Search(ctx, vector.Query{Vector: v, K: weaviate.MaxK})
		require.NoError(t, err)
		require.Len(t, ms, 1)

		// MaxK is the server's: one more is refused by the server itself.
		class := fmt.Sprintf("%s_%d", prefix, n.Load())
		nv := c.GraphQL().NearVectorArgBuilder().WithVector(v)
		for _, tc := range []struct {
			limit   int
			refused bool
		}{{weaviate.MaxK, false}, {weaviate.MaxK + 1, true}} {
			res, err := c.GraphQL().Get().WithClassName(class).WithFields(graphql.Field{Name: "loom_id"}).
				WithNearVector(nv).WithLimit(tc.limit).Do(ctx)
			require.NoError(t, err)
			require.Equal(t, tc.refused, len(res.Errors) > 0, "limit %d: %v", tc.limit, res.Errors)
		}
	})

	t.Run("empty lists are dropped", func(t *testing.T) {
		s := open(t)
		require.NoError(t, s.Upsert(ctx,
			vector.Document{ID: "e", Text: "e", Vector: v, Metadata: map[string]any{"tags": []string{}, "lang": "go"}},
			vector.Document{ID: "f", Text: "f", Vector: v, Metadata: map[string]any{"tags": []string{"x"}}},
			vector.Document{ID: "g", Text: "g", Vector: v, Metadata: map[string]any{"tags": []string{}}}))
		ms, err := s.Search(ctx, vector.Query{Vector: v, K: 10})
		require.NoError(t, err)
		got := map[string]map[string]any{}
		for _, m := range ms {
			got[m.ID] = m.Metadata
		}
		require.Equal(t, map[string]map[string]any{
			"e": {"lang": "go"},
			"f": {"tags": []string{"x"}},
			"g": nil,
		}, normalise(got))
	})
}

// normalise maps empty metadata to nil, so that a store returning an empty
// map and one returning nil compare equal.
func normalise(m map[string]map[string]any) map[string]map[string]any {
	for k, v := range m {
		if len(v) == 0 {
			m[k] = nil
		}
	}
	return m
}
