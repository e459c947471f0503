package chroma_test

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	chromago "github.com/amikos-tech/chroma-go/pkg/api/v2"
	"github.com/amikos-tech/chroma-go/pkg/embeddings"
)

// fake is a local Chroma v2 REST server: pre-flight checks, collections
// (get or create, and get by name with the schema of its metadata keys),
// upsert (which merges metadata, a null deleting a key,
// as Chroma does), get, query (where clause before the nearest-neighbour
// cut, cosine distance) and delete. It reports its batch limit in the
// pre-flight checks and refuses any request carrying more records, ids
// or query embeddings. It rejects anything else and records every
// request.
type fake struct {
	t   *testing.T
	srv *httptest.Server

	mu          sync.Mutex
	collections map[string]*collection // by id
	requests    []request
	schemaless  bool // report no collection schema, as servers before schemas

	// limit is the most records, ids or query embeddings one request may
	// carry: the max_batch_size of the pre-flight checks. startFake sets
	// maxBatchSize; a test may set it lower before the first request.
	limit int
	// preflight is how the pre-flight checks answer: preflightOK, or as a
	// server that does not report the limit.
	preflight preflightMode
	// indexMissing is how many of the next queries fail as the real server
	// answers a query that reaches a new collection's vector index before
	// it is on disk.
	indexMissing int
	// indexMessage is the message of those failures; "" is the one of an
	// index not on disk yet.
	indexMessage string
}

// maxBatchSize is the max_batch_size a default Chroma server reports in
// its pre-flight checks.
const maxBatchSize = 5461

// preflightMode is how the fake answers GET /api/v2/pre-flight-checks.
type preflightMode int

const (
	preflightOK      preflightMode = iota // max_batch_size = limit
	preflightNoLimit                      // a reply without max_batch_size
	preflightFails                        // a 500
)

type collection struct {
	id, name      string
	metadata      map[string]any
	configuration map[string]any
	records       map[string]record
	keys          map[string]string // metadata key → value type, as the server's schema lists them
}

type record struct {
	text     string
	vector   []float64
	metadata map[string]any
}

// request is one call the fake received.
type request struct {
	Method, Path string
	Body         map[string]any
}

func startFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{t: t, collections: map[string]*collection{}, limit: maxBatchSize}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if r.Body != nil {
		dec := json.NewDecoder(r.Body)
		dec.UseNumber()
		if err := dec.Decode(&body); err != nil && err.Error() != "EOF" {
			http.Error(w, `{"error":"InvalidArgumentError","message":"bad JSON"}`, http.StatusBadRequest)
			return
		}
	}
	if body == nil {
		body = map[string]any{}
	}
	numbers(body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, request{Method: r.Method, Path: r.URL.Path, Body: body})
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v2/"), "/")
	var reply any
	var err error
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v2/pre-flight-checks":
		switch f.preflight {
		case preflightOK:
			reply = map[string]any{"max_batch_size": f.limit, "supports_base64_encoding": true}
		case preflightNoLimit:
			reply = map[string]any{"supports_base64_encoding": true}
		case preflightFails:
			http.Error(w, `{"error":"InternalError","message":"pre-flight checks are down"}`, http.StatusInternalServerError)
			return
		}
	case r.Method == http.MethodGet && len(parts) == 6 && parts[0] == "tenants" && parts[2] == "databases" && parts[4] == "collections":
		reply, err = f.getCollection(parts[1], parts[3], parts[5])
	case r.Method == http.MethodPost && len(parts) == 5 && parts[0] == "tenants" && parts[2] == "databases" && parts[4] == "collections":
		reply, err = f.getOrCreate(parts[1], parts[3], body)
	case r.Method == http.MethodPost && len(parts) == 7 && parts[4] == "collections":
		c := f.collections[parts[5]]
		if c == nil {
			err = fmt.Errorf("collection %s does not exist", parts[5])
			break
		}
		n := max(len(list(body["ids"])), len(list(body["embeddings"])), len(list(body["query_embeddings"])))
		if n > f.limit {
			err = fmt.Errorf("Cannot submit more than %d records in one request: Maximum allowed is %d but got %d", f.limit, f.limit, n)
			break
		}
		switch parts[6] {
		case "upsert":
			reply, err = c.upsert(body)
		case "get":
			reply, err = c.get(body)
		case "query":
			if f.indexMissing > 0 {
				f.indexMissing--
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				msg := cmp.Or(f.indexMessage, "Error executing plan: Error creating hnsw segment reader: Nothing found on disk")
				_ = json.NewEncoder(w).Encode(map[string]string{"error": "InternalError", "message": msg})
				return
			}
			reply, err = c.query(body)
		case "delete":
			for _, id := range list(body["ids"]) {
				delete(c.records, id.(string))
			}
			reply = map[string]any{}
		default:
			err = fmt.Errorf("the fake does not serve %s", r.URL.Path)
		}
	default:
		err = fmt.Errorf("the fake does not serve %s %s", r.Method, r.URL.Path)
	}
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "InvalidArgumentError", "message": err.Error()})
		return
	}
	_ = json.NewEncoder(w).Encode(reply)
}

func (f *fake) getOrCreate(tenant, database string, body map[string]any) (any, error) {
	name, _ := body["name"].(string)
	if name == "" {
		return nil, fmt.Errorf("a collection needs a name")
	}
	var c *collection
	for _, x := range f.collections {
		if x.name == name {
			c = x
		}
	}
	if c != nil && body["get_or_create"] != true {
		return nil, fmt.Errorf("collection %s already exists", name)
	}
	if c == nil {
		md, _ := body["metadata"].(map[string]any)
		conf, _ := body["configuration"].(map[string]any)
		c = &collection{id: fmt.Sprintf("00000000-0000-0000-0000-%012d", len(f.collections)+1), name: name, metadata: md, configuration: conf, records: map[string]record{}}
		f.collections[c.id] = c
	}
	return f.describe(c, tenant, database), nil
}

// getCollection answers GET .../collections/NAME.
func (f *fake) getCollection(tenant, database, name string) (any, error) {
	for _, c := range f.collections {
		if c.name == name {
			return f.describe(c, tenant, database), nil
		}
	}
	return nil, fmt.Errorf("collection %s does not exist", name)
}

// describe is a collection as the server reports it: with its dimension
// once a record is stored, and, unless the fake is schemaless (as servers
// before schemas), a schema listing every metadata key ever written beside
// the server's own "#document" and "#embedding".
func (f *fake) describe(c *collection, tenant, database string) map[string]any {
	reply := map[string]any{"id": c.id, "name": c.name, "metadata": c.metadata, "configuration_json": c.configuration, "tenant": tenant, "database": database}
	for _, r := range c.records {
		reply["dimension"] = len(r.vector)
		break
	}
	if !f.schemaless {
		keys := map[string]any{
			"#document":  map[string]any{"string": map[string]any{"fts_index": map[string]any{"enabled": false, "config": map[string]any{}}}},
			"#embedding": map[string]any{"float_list": map[string]any{"vector_index": map[string]any{"enabled": true, "config": map[string]any{"space": "cosine"}}}},
		}
		for k, typ := range c.keys {
			keys[k] = map[string]any{typ: map[string]any{typ + "_inverted_index": map[string]any{"enabled": true, "config": map[string]any{}}}}
		}
		reply["schema"] = map[string]any{"defaults": map[string]any{}, "keys": keys}
	}
	return reply
}

func (c *collection) upsert(body map[string]any) (any, error) {
	ids := list(body["ids"])
	embs := list(body["embeddings"])
	docs := list(body["documents"])
	metas := list(body["metadatas"])
	if len(embs) != len(ids) || (docs != nil && len(docs) != len(ids)) || (metas != nil && len(metas) != len(ids)) {
		return nil, fmt.Errorf("ids, embeddings, documents and metadatas differ in length")
	}
	for i, id := range ids {
		vec, err := embedding(embs[i])
		if err != nil {
			return nil, err
		}
		old, exists := c.records[id.(string)]
		rec := record{vector: vec, metadata: map[string]any{}}
		if exists {
			for k, v := range old.metadata {
				rec.metadata[k] = v
			}
		}
		if docs != nil {
			rec.text, _ = docs[i].(string)
		}
		if metas != nil && metas[i] != nil {
			for k, v := range metas[i].(map[string]any) {
				if v == nil {
					delete(rec.metadata, k)
				} else {
					rec.metadata[k] = v
					if c.keys == nil {
						c.keys = map[string]string{}
					}
					c.keys[k] = valueType(v)
				}
			}
		}
		c.records[id.(string)] = rec
	}
	return map[string]any{}, nil
}

// valueType names the schema value type of a metadata value.
func valueType(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case float64:
		if x == math.Trunc(x) {
			return "int"
		}
		return "float"
	}
	return "string" // a list of strings
}

func (c *collection) get(body map[string]any) (any, error) {
	out := map[string]any{"ids": []any{}, "metadatas": []any{}, "include": body["include"]}
	for _, id := range list(body["ids"]) {
		if r, ok := c.records[id.(string)]; ok {
			out["ids"] = append(out["ids"].([]any), id)
			out["metadatas"] = append(out["metadatas"].([]any), nilIfEmpty(r.metadata))
		}
	}
	return out, nil
}

func (c *collection) query(body map[string]any) (any, error) {
	qs := list(body["query_embeddings"])
	if len(qs) != 1 {
		return nil, fmt.Errorf("the fake takes one query embedding, got %d", len(qs))
	}
	q, err := embedding(qs[0])
	if err != nil {
		return nil, err
	}
	n, _ := body["n_results"].(float64)
	if n < 1 {
		return nil, fmt.Errorf("n_results must be positive")
	}
	wh, _ := body["where"].(map[string]any)
	type hit struct {
		id   string
		dist float64
	}
	var hits []hit
	for id, r := range c.records {
		if len(r.vector) != len(q) {
			return nil, fmt.Errorf("Collection expecting embedding with dimension of %d, got %d", len(r.vector), len(q))
		}
		if wh != nil {
			ok, err := matchWhere(wh, r.metadata)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		hits = append(hits, hit{id, 1 - cosine(q, r.vector)})
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].dist < hits[j].dist })
	hits = hits[:min(len(hits), int(n))]
	ids, docs, metas, embs, dists := []any{}, []any{}, []any{}, []any{}, []any{}
	for _, h := range hits {
		r := c.records[h.id]
		ids = append(ids, h.id)
		docs = append(docs, r.text)
		metas = append(metas, nilIfEmpty(r.metadata))
		embs = append(embs, r.vector)
		dists = append(dists, h.dist)
	}
	out := map[string]any{"ids": []any{ids}, "documents": []any{docs}, "metadatas": []any{metas},
		"embeddings": []any{embs}, "distances": []any{dists}, "include": body["include"]}
	if inc, _ := body["include"].([]any); !slices.Contains(inc, any("embeddings")) {
		out["embeddings"] = nil // as the real server does
	}
	return out, nil
}

// matchWhere evaluates Chroma's where clause: {"field": {"$op": value}},
// $and and $or over two or more clauses. $eq and $in match scalar fields,
// $contains matches an element of a list field, values of different types
// never match, ranges apply to numbers.
func matchWhere(wh map[string]any, md map[string]any) (bool, error) {
	if len(wh) != 1 {
		return false, fmt.Errorf("a where clause has one key, got %d", len(wh))
	}
	for key, cond := range wh {
		if key == "$and" || key == "$or" {
			subs := list(cond)
			if len(subs) < 2 {
				return false, fmt.Errorf("expected %s to have at least two where expressions", key)
			}
			all := key == "$and"
			for _, s := range subs {
				ok, err := matchWhere(s.(map[string]any), md)
				if err != nil {
					return false, err
				}
				if ok != all {
					return ok, nil
				}
			}
			return all, nil
		}
		ops, isOps := cond.(map[string]any)
		if !isOps || len(ops) != 1 {
			return false, fmt.Errorf("where %q needs one operator", key)
		}
		field, present := md[key]
		for op, want := range ops {
			if !present {
				return false, nil
			}
			switch op {
			case "$eq":
				_, isList := field.([]any)
				return !isList && field == want, nil
			case "$contains":
				l, isList := field.([]any)
				return isList && slices.Contains(l, want), nil
			case "$gt", "$gte", "$lt", "$lte":
				bound, ok := want.(float64)
				if !ok {
					return false, fmt.Errorf("%s needs a number", op)
				}
				n, isNum := field.(float64)
				return isNum && map[string]bool{"$gt": n > bound, "$gte": n >= bound, "$lt": n < bound, "$lte": n <= bound}[op], nil
			}
			return false, fmt.Errorf("the fake does not implement %s", op)
		}
	}
	return false, nil
}

// embedding reads a vector sent as a JSON list or as base64 of
// little-endian float32s.
func embedding(v any) ([]float64, error) {
	if s, ok := v.(string); ok {
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, err
		}
		f32 := make([]float32, len(raw)/4)
		if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, f32); err != nil {
			return nil, err
		}
		out := make([]float64, len(f32))
		for i, x := range f32 {
			out[i] = float64(x)
		}
		return out, nil
	}
	var out []float64
	for _, x := range list(v) {
		out = append(out, x.(float64))
	}
	return out, nil
}

// numbers turns json.Numbers into float64 throughout.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
		return x
	}
	return v
}

func list(v any) []any { l, _ := v.([]any); return l }

func nilIfEmpty(m map[string]any) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

func cosine(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

// calls returns the requests received so far whose path ends with suffix.
func (f *fake) calls(suffix string) []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []request
	for _, r := range f.requests {
		if strings.HasSuffix(r.Path, suffix) {
			out = append(out, r)
		}
	}
	return out
}

// chromaL2 makes a collection with l2 distance, and an embedding function
// so that chroma-go does not build its default one.
func chromaL2() []chromago.CreateCollectionOption {
	return []chromago.CreateCollectionOption{
		chromago.WithHNSWSpaceCreate(embeddings.L2),
		chromago.WithEmbeddingFunctionCreate(embeddings.NewConsistentHashEmbeddingFunction()),
		chromago.WithDisableEFConfigStorage(),
	}
}
