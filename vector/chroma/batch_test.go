package chroma_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	chromago "github.com/amikos-tech/chroma-go/pkg/api/v2"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/chroma"
)

// docs returns n documents of two dimensions with ids d0, d1, … and a
// metadata key of their own.
func docs(n int) []vector.Document {
	out := make([]vector.Document, n)
	for i := range out {
		a := float64(i) / float64(n) * math.Pi / 2
		out[i] = vector.Document{ID: fmt.Sprintf("d%d", i), Vector: []float32{float32(math.Cos(a)), float32(math.Sin(a)) + 0.01},
			Metadata: map[string]any{fmt.Sprintf("k%d", i%3): float64(i)}}
	}
	return out
}

func ids(ds []vector.Document) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return out
}

// sizes returns how many ids each request carried, and all the ids in
// order.
func sizes(reqs []request) ([]int, []string) {
	var ns []int
	var all []string
	for _, r := range reqs {
		l := list(r.Body["ids"])
		ns = append(ns, len(l))
		for _, id := range l {
			all = append(all, id.(string))
		}
	}
	return ns, all
}

// chunks is how n items split into requests of at most size.
func chunks(n, size int) []int {
	var out []int
	for ; n > 0; n -= size {
		out = append(out, min(n, size))
	}
	return out
}

func TestBatchesAtServerLimit(t *testing.T) {
	cases := []struct {
		name       string
		batchSize  int
		limit      int
		schemaless bool
		want       int
	}{
		{name: "zero takes the default, capped at the server's limit", batchSize: 0, limit: 7, want: 7},
		{name: "above the server's limit is capped", batchSize: 1000, limit: 7, want: 7},
		{name: "below the server's limit is kept", batchSize: 3, limit: 7, want: 3},
		{name: "zero takes the default under a default server's limit", batchSize: 0, limit: maxBatchSize, want: chroma.DefaultBatchSize},
		{name: "the reads before writes of a server without schemas are capped too", batchSize: 0, limit: 7, schemaless: true, want: 7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := startFake(t)
			f.limit = tc.limit
			f.schemaless = tc.schemaless
			s, err := chroma.Open(ctx, chroma.Config{Client: client(t, f), Dimensions: 2, BatchSize: tc.batchSize})
			require.NoError(t, err)
			require.NotEmpty(t, f.calls("/pre-flight-checks"), "Open reads the server's limit")
			require.Equal(t, tc.want, s.BatchSize())

			ds := docs(2*tc.want + 1)
			want := chunks(len(ds), tc.want)
			for range 2 { // the second upsert replaces every record
				require.NoError(t, s.Upsert(ctx, ds...))
			}
			got, all := sizes(f.calls("/upsert"))
			require.Equal(t, append(want, want...), got, "upsert requests")
			require.Equal(t, append(ids(ds), ids(ds)...), all)
			if tc.schemaless {
				got, all = sizes(f.calls("/get"))
				require.Equal(t, append(want, want...), got, "reads of the stored metadata")
				require.Equal(t, append(ids(ds), ids(ds)...), all)
			} else {
				require.Empty(t, f.calls("/get"), "a server with schemas needs no read of records")
			}
			ms, err := s.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: len(ds)})
			require.NoError(t, err)
			require.Len(t, ms, len(ds), "every batch was written")

			require.NoError(t, s.Delete(ctx, ids(ds)...))
			got, all = sizes(f.calls("/delete"))
			require.Equal(t, want, got, "delete requests")
			require.Equal(t, ids(ds), all)
			ms, err = s.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: len(ds)})
			require.NoError(t, err)
			require.Empty(t, ms, "every batch was deleted")
		})
	}
}

// TestBatchSizeWithoutServerLimit: a server whose pre-flight checks fail
// or report no max_batch_size still opens, with batches capped at a
// default server's limit.
func TestBatchSizeWithoutServerLimit(t *testing.T) {
	cases := []struct {
		name      string
		preflight preflightMode
		batchSize int
		want      int
	}{
		{name: "no field, zero", preflight: preflightNoLimit, batchSize: 0, want: chroma.DefaultBatchSize},
		{name: "no field, small", preflight: preflightNoLimit, batchSize: 50, want: 50},
		{name: "no field, large", preflight: preflightNoLimit, batchSize: 10000, want: chroma.DefaultMaxBatchSize},
		{name: "failing, zero", preflight: preflightFails, batchSize: 0, want: chroma.DefaultBatchSize},
		{name: "failing, large", preflight: preflightFails, batchSize: 10000, want: chroma.DefaultMaxBatchSize},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := startFake(t)
			f.preflight = tc.preflight
			s, err := chroma.Open(ctx, chroma.Config{Client: client(t, f), Dimensions: 2, BatchSize: tc.batchSize})
			require.NoError(t, err)
			require.NotEmpty(t, f.calls("/pre-flight-checks"))
			require.Equal(t, tc.want, s.BatchSize())
			if tc.preflight == preflightFails {
				return // chroma-go's own pre-flight before each write fails too
			}
			ds := docs(tc.want + 1)
			require.NoError(t, s.Upsert(ctx, ds...))
			got, _ := sizes(f.calls("/upsert"))
			require.Equal(t, chunks(len(ds), tc.want), got)
		})
	}
}

// wrapped is a client that is not chroma-go's HTTP client: it hides the
// method the store reads the pre-flight checks with.
type wrapped struct{ chromago.Client }

func TestBatchSizeOfAnotherClient(t *testing.T) {
	f := startFake(t)
	f.limit = 7
	s, err := chroma.Open(context.Background(), chroma.Config{Client: wrapped{client(t, f)}, Dimensions: 2, BatchSize: 10000})
	require.NoError(t, err)
	require.Empty(t, f.calls("/pre-flight-checks"), "the store cannot send them")
	require.Equal(t, chroma.DefaultMaxBatchSize, s.BatchSize())
}

// TestFakeRefusesOverLimit proves the fake refuses, on every operation, a
// request carrying more than its limit, so the tests above would see a
// store that overran it.
func TestFakeRefusesOverLimit(t *testing.T) {
	f := startFake(t)
	f.limit = 2
	s, err := chroma.Open(context.Background(), chroma.Config{Client: client(t, f), Dimensions: 2})
	require.NoError(t, err)
	require.Equal(t, 2, s.BatchSize())
	col := f.calls("/collections")[0]
	f.mu.Lock()
	var id string
	for _, c := range f.collections {
		id = c.id
	}
	f.mu.Unlock()
	require.NotEmpty(t, id)
	base := f.srv.URL + col.Path + "/" + id
	three := `["a","b","c"]`
	vecs := `[[1,0],[0,1],[1,1]]`
	for op, body := range map[string]string{
		"upsert": `{"ids":` + three + `,"embeddings":` + vecs + `}`,
		"get":    `{"ids":` + three + `}`,
		"delete": `{"ids":` + three + `}`,
		"query":  `{"query_embeddings":` + vecs + `,"n_results":1}`,
	} {
		t.Run(op, func(t *testing.T) {
			resp, err := f.srv.Client().Post(base+"/"+op, "application/json", strings.NewReader(body))
			require.NoError(t, err)
			msg, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(msg))
			require.Contains(t, string(msg), "Maximum allowed is 2 but got 3")
		})
	}
}

// TestRealServerBatchLimit: the store reads the real server's
// max_batch_size, caps a larger BatchSize there, and writes, replaces and
// deletes more records than one request may carry.
func TestRealServerBatchLimit(t *testing.T) {
	c := realClient(t)
	ctx := context.Background()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Get(os.Getenv(ChromaURLEnv) + "/api/v2/pre-flight-checks")
	require.NoError(t, err)
	var pre struct {
		MaxBatchSize int `json:"max_batch_size"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&pre))
	require.NoError(t, resp.Body.Close())
	require.Positive(t, pre.MaxBatchSize, "the server reports max_batch_size")

	name := fmt.Sprintf("loom%d-batch", time.Now().UnixNano())
	s, err := chroma.Open(ctx, chroma.Config{Client: c, Collection: name, Dimensions: 2, BatchSize: 1_000_000})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.DeleteCollection(context.Background(), name) })
	require.Equal(t, pre.MaxBatchSize, s.BatchSize(), "BatchSize is capped at the server's limit")

	ds := docs(pre.MaxBatchSize + 539) // 6,000 on a default server
	col, err := c.GetCollection(ctx, name)
	require.NoError(t, err)
	count := func() int {
		n, err := col.Count(ctx)
		require.NoError(t, err)
		return n
	}
	require.NoError(t, s.Upsert(ctx, ds...))
	require.Equal(t, len(ds), count())
	for i := range ds {
		ds[i].Metadata = map[string]any{"v": 2.0}
	}
	require.NoError(t, s.Upsert(ctx, ds...), "replacing every record")
	ms, err := s.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: 3})
	require.NoError(t, err)
	require.Len(t, ms, 3)
	for _, m := range ms {
		require.Equal(t, map[string]any{"v": 2.0}, m.Metadata, "the replaced metadata")
	}
	got, err := col.Get(ctx, chromago.WithIDs(chromago.DocumentID(ds[len(ds)-1].ID)))
	require.NoError(t, err)
	require.Len(t, got.GetIDs(), 1, "the last batch was written")

	require.NoError(t, s.Delete(ctx, ids(ds)...))
	require.Zero(t, count(), "every batch was deleted")
}
