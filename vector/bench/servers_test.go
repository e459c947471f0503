package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	chromago "github.com/amikos-tech/chroma-go/pkg/api/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	wv "github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"

	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/chroma"
	"github.com/loomwork/loom/vector/pgvector"
	"github.com/loomwork/loom/vector/weaviate"
)

// The servers the adapters are measured on, named by the variables
// .ci/vector.sh sets (as the adapters' own tests read them).
const (
	weaviateEnv = "LOOM_TEST_WEAVIATE_URL"
	// weaviateGRPCEnv is host:port of the same server's gRPC API.
	weaviateGRPCEnv = "LOOM_TEST_WEAVIATE_GRPC"
	chromaEnv       = "LOOM_TEST_CHROMA_URL"
	pgvectorEnv     = "LOOM_TEST_PGVECTOR_DSN"
)

// serverDims is the dimension of the data put through the servers: a
// common sentence-embedding size, small enough that a run takes seconds.
const serverDims = 384

// serverStore is what the server benchmarks need of each way to reach a
// database: insert the documents in batches, and a top-k query that returns
// the ids, best first.
type serverStore interface {
	insert(ctx context.Context, vs [][]float32, batch int) error
	query(ctx context.Context, q []float32, withVectors bool) ([]string, error)
}

// serverContender is one way to reach one database.
type serverContender struct {
	db, name string
	open     func(tb testing.TB, url string) serverStore
}

func serverContenders() []serverContender {
	return []serverContender{
		{"weaviate", "loom", openLoomWeaviate},
		{"weaviate", "loom-grpc", openLoomWeaviateGRPC},
		{"weaviate", "native", openNativeWeaviate},
		{"chroma", "loom", openLoomChroma},
		{"chroma", "native", openNativeChroma},
		{"pgvector", "loom", openLoomPgvector},
		{"pgvector", "native", openNativePgvector},
	}
}

// serverURL returns the address of db's server, or skips (fails under CI,
// which starts every one).
func serverURL(tb testing.TB, db string) string {
	tb.Helper()
	env := map[string]string{"weaviate": weaviateEnv, "chroma": chromaEnv, "pgvector": pgvectorEnv}[db]
	u := os.Getenv(env)
	if u == "" {
		if os.Getenv("CI") != "" {
			tb.Fatalf("%s is not set: .ci/vector.sh starts the %s server and sets it", env, db)
		}
		tb.Skipf("%s is not set: run the server as .ci/vector.sh does and set it", env)
	}
	return u
}

var serial atomic.Int64

// uniqueName returns a collection, class or table name no other run uses.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s%d_%d", prefix, time.Now().UnixNano(), serial.Add(1))
}

// docID and lang are every document's id and metadata, the same through
// every contender.
func docID(i int) string { return fmt.Sprint("doc-", i) }

var langs = []string{"go", "python", "rust", "java"}

func lang(i int) string { return langs[i%len(langs)] }

// httpClient returns a client of its own whose idle connections are
// closed when tb ends.
func httpClient(tb testing.TB) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	tb.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// loomServer is a loom adapter: Upsert of each batch, Search of K.
type loomServer struct{ s vector.Store }

func (l loomServer) insert(ctx context.Context, vs [][]float32, batch int) error {
	for lo := 0; lo < len(vs); lo += batch {
		docs := make([]vector.Document, 0, batch)
		for i := lo; i < min(lo+batch, len(vs)); i++ {
			docs = append(docs, vector.Document{ID: docID(i), Text: "text", Vector: vs[i], Metadata: map[string]any{"lang": lang(i)}})
		}
		if err := l.s.Upsert(ctx, docs...); err != nil {
			return err
		}
	}
	return nil
}

func (l loomServer) query(ctx context.Context, q []float32, withVectors bool) ([]string, error) {
	ms, err := l.s.Search(ctx, vector.Query{Vector: q, K: k, WithVectors: withVectors})
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids, err
}

func openLoomWeaviate(tb testing.TB, raw string) serverStore {
	return openLoomWeaviateWith(tb, raw, nil)
}

// openLoomWeaviateGRPC is the adapter on a client configured with the
// server's gRPC API, which the client then uses for batches (search stays
// GraphQL over REST). The client has no Close: its gRPC connection lives
// until the process ends.
func openLoomWeaviateGRPC(tb testing.TB, raw string) serverStore {
	addr := os.Getenv(weaviateGRPCEnv)
	if addr == "" {
		if os.Getenv("CI") != "" {
			tb.Fatalf("%s is not set: .ci/weaviate.sh sets it with %s", weaviateGRPCEnv, weaviateEnv)
		}
		tb.Skipf("%s is not set: set it to the host:port of the server's gRPC API", weaviateGRPCEnv)
	}
	return openLoomWeaviateWith(tb, raw, &grpc.Config{Host: addr})
}

func openLoomWeaviateWith(tb testing.TB, raw string, g *grpc.Config) serverStore {
	u, err := url.Parse(raw)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := wv.NewClient(wv.Config{Host: u.Host, Scheme: u.Scheme, ConnectionClient: httpClient(tb), GrpcConfig: g})
	if err != nil {
		tb.Fatal(err)
	}
	class := uniqueName("LoomBench")
	s, err := weaviate.Open(context.Background(), weaviate.Config{Client: c, Class: class, Dimensions: serverDims})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = s.Close()
		_ = c.Schema().ClassDeleter().WithClassName(class).Do(context.Background())
	})
	return loomServer{s}
}

func openLoomChroma(tb testing.TB, raw string) serverStore {
	c, err := chromago.NewHTTPClient(chromago.WithBaseURL(raw), chromago.WithHTTPClient(httpClient(tb)))
	if err != nil {
		tb.Fatal(err)
	}
	name := uniqueName("loombench")
	s, err := chroma.Open(context.Background(), chroma.Config{Client: c, Collection: name, Dimensions: serverDims})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = s.Close()
		_ = c.DeleteCollection(context.Background(), name)
		_ = c.Close()
	})
	return loomServer{s}
}

// pgPool connects to the PostgreSQL server as the pgvector module's tests
// do: PGlite runs every connection on one backend session, which keeps
// prepared statements across connections, so the pool has one connection
// and prepares no named statements (the same for loom and native).
func pgPool(tb testing.TB, dsn string) *pgxpool.Pool {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.MaxConns = 1
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return pool
}

func openLoomPgvector(tb testing.TB, dsn string) serverStore {
	pool := pgPool(tb, dsn)
	table := uniqueName("loombench")
	s, err := pgvector.Open(context.Background(), pgvector.Config{Pool: pool, Table: table, Dimensions: serverDims})
	if err != nil {
		pool.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = s.Close()
		_, _ = pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+pgx.Identifier{table}.Sanitize())
		pool.Close()
	})
	return loomServer{s}
}

// postJSON sends body (if not nil) as JSON and decodes the reply into out (when not
// nil), failing on a status other than 200.
func postJSON(ctx context.Context, c *http.Client, method, u string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, msg)
	}
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// nativeWeaviate is Weaviate's own REST and GraphQL API through net/http:
// the class as the adapter makes it, batches of objects, one GraphQL Get
// with nearVector.
type nativeWeaviate struct {
	c     *http.Client
	base  string
	class string
}

func openNativeWeaviate(tb testing.TB, raw string) serverStore {
	w := nativeWeaviate{c: httpClient(tb), base: strings.TrimSuffix(raw, "/"), class: uniqueName("NativeBench")}
	ctx := context.Background()
	text := func(name string) map[string]any {
		return map[string]any{"name": name, "dataType": []string{"text"}, "tokenization": "field"}
	}
	class := map[string]any{"class": w.class, "vectorizer": "none", "vectorIndexConfig": map[string]any{"distance": "cosine"},
		"properties": []any{text("loom_id"), map[string]any{"name": "loom_text", "dataType": []string{"text"}}, text("lang")}}
	if err := postJSON(ctx, w.c, http.MethodPost, w.base+"/v1/schema", class, nil); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, w.base+"/v1/schema/"+w.class, nil)
		if resp, err := w.c.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	return w
}

func (w nativeWeaviate) insert(ctx context.Context, vs [][]float32, batch int) error {
	for lo := 0; lo < len(vs); lo += batch {
		objs := make([]any, 0, batch)
		for i := lo; i < min(lo+batch, len(vs)); i++ {
			objs = append(objs, map[string]any{"class": w.class, "id": weaviate.ObjectID(docID(i)), "vector": vs[i],
				"properties": map[string]any{"loom_id": docID(i), "loom_text": "text", "lang": lang(i)}})
		}
		var res []struct {
			Result struct {
				Errors *struct {
					Error []struct{ Message string } `json:"error"`
				} `json:"errors"`
			} `json:"result"`
		}
		if err := postJSON(ctx, w.c, http.MethodPost, w.base+"/v1/batch/objects", map[string]any{"objects": objs}, &res); err != nil {
			return err
		}
		for _, r := range res {
			if r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				return fmt.Errorf("batch: %s", r.Result.Errors.Error[0].Message)
			}
		}
	}
	return nil
}

func (w nativeWeaviate) query(ctx context.Context, q []float32, withVectors bool) ([]string, error) {
	vec, _ := json.Marshal(q)
	additional := "distance"
	if withVectors {
		additional = "distance vector"
	}
	gql := fmt.Sprintf(`{Get{%s(nearVector:{vector:%s},limit:%d){loom_id loom_text lang _additional{%s}}}}`, w.class, vec, k, additional)
	var res struct {
		Data struct {
			Get map[string][]struct {
				ID string `json:"loom_id"`
			}
		}
		Errors []struct{ Message string }
	}
	if err := postJSON(ctx, w.c, http.MethodPost, w.base+"/v1/graphql", map[string]any{"query": gql}, &res); err != nil {
		return nil, err
	}
	if len(res.Errors) > 0 {
		return nil, fmt.Errorf("graphql: %s", res.Errors[0].Message)
	}
	objs := res.Data.Get[w.class]
	ids := make([]string, len(objs))
	for i, o := range objs {
		ids[i] = o.ID
	}
	return ids, nil
}

// nativeChroma is Chroma's own v2 REST API through net/http: a cosine
// collection, upsert of each batch, one query.
type nativeChroma struct {
	c      *http.Client
	col    string // the collection's URL, by id
	byName string // the collection's URL, by name
}

func openNativeChroma(tb testing.TB, raw string) serverStore {
	c := httpClient(tb)
	base := strings.TrimSuffix(raw, "/") + "/api/v2/tenants/default_tenant/databases/default_database/collections"
	var col struct{ ID string }
	name := uniqueName("nativebench")
	err := postJSON(context.Background(), c, http.MethodPost, base,
		map[string]any{"name": name, "metadata": map[string]any{"hnsw:space": "cosine"}, "get_or_create": true}, &col)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, base+"/"+name, nil)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	return nativeChroma{c: c, col: base + "/" + col.ID, byName: base + "/" + name}
}

func (n nativeChroma) insert(ctx context.Context, vs [][]float32, batch int) error {
	for lo := 0; lo < len(vs); lo += batch {
		hi := min(lo+batch, len(vs))
		ids, docs, metas := make([]string, 0, hi-lo), make([]string, 0, hi-lo), make([]any, 0, hi-lo)
		for i := lo; i < hi; i++ {
			ids, docs, metas = append(ids, docID(i)), append(docs, "text"), append(metas, map[string]any{"lang": lang(i)})
		}
		body := map[string]any{"ids": ids, "embeddings": vs[lo:hi], "documents": docs, "metadatas": metas}
		if err := postJSON(ctx, n.c, http.MethodPost, n.col+"/upsert", body, nil); err != nil {
			return err
		}
	}
	return nil
}

func (n nativeChroma) query(ctx context.Context, q []float32, withVectors bool) ([]string, error) {
	include := []string{"documents", "metadatas", "distances"}
	if withVectors {
		include = append(include, "embeddings")
	}
	var res struct{ IDs [][]string }
	body := map[string]any{"query_embeddings": [][]float32{q}, "n_results": k, "include": include}
	if err := postJSON(ctx, n.c, http.MethodPost, n.col+"/query", body, &res); err != nil {
		return nil, err
	}
	if len(res.IDs) != 1 {
		return nil, fmt.Errorf("query: %d result lists", len(res.IDs))
	}
	return res.IDs[0], nil
}

// nativePgvector is pgx on a table as the adapter makes it: a batch of
// INSERT … ON CONFLICT statements per batch (one round trip), and one
// SELECT … ORDER BY embedding <=> $1 LIMIT k with the server's settings.
type nativePgvector struct {
	pool  *pgxpool.Pool
	table string
}

func openNativePgvector(tb testing.TB, dsn string) serverStore {
	ctx := context.Background()
	pool := pgPool(tb, dsn)
	name := uniqueName("nativebench")
	table := pgx.Identifier{name}.Sanitize()
	for _, ddl := range []string{
		`CREATE EXTENSION IF NOT EXISTS vector`,
		fmt.Sprintf(`CREATE TABLE %s (id text PRIMARY KEY, text text NOT NULL, metadata jsonb NOT NULL, embedding vector(%d) NOT NULL)`, table, serverDims),
		fmt.Sprintf(`CREATE INDEX ON %s USING hnsw (embedding vector_cosine_ops)`, table),
		fmt.Sprintf(`CREATE INDEX ON %s USING gin (metadata jsonb_path_ops)`, table),
	} {
		if _, err := pool.Exec(ctx, ddl); err != nil {
			pool.Close()
			tb.Fatal(err)
		}
	}
	tb.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+table)
		pool.Close()
	})
	return nativePgvector{pool: pool, table: table}
}

// vectorText is pgvector's text form of v.
func vectorText(v []float32) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (p nativePgvector) insert(ctx context.Context, vs [][]float32, batch int) error {
	sql := `INSERT INTO ` + p.table + ` (id, text, metadata, embedding) VALUES ($1, $2, $3::jsonb, $4::vector)
ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text, metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding`
	for lo := 0; lo < len(vs); lo += batch {
		var b pgx.Batch
		for i := lo; i < min(lo+batch, len(vs)); i++ {
			md, _ := json.Marshal(map[string]any{"lang": lang(i)})
			b.Queue(sql, docID(i), "text", string(md), vectorText(vs[i]))
		}
		if err := p.pool.SendBatch(ctx, &b).Close(); err != nil {
			return err
		}
	}
	return nil
}

func (p nativePgvector) query(ctx context.Context, q []float32, withVectors bool) ([]string, error) {
	vecCol := "NULL::text"
	if withVectors {
		vecCol = "embedding::text"
	}
	rows, err := p.pool.Query(ctx, `SELECT id, text, metadata, `+vecCol+`, embedding <=> $1::vector FROM `+p.table+
		` ORDER BY embedding <=> $1::vector LIMIT $2`, vectorText(q), k)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var (
			id, text string
			md       map[string]any
			vec      *string
			dist     float64
		)
		if err := rows.Scan(&id, &text, &md, &vec, &dist); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
