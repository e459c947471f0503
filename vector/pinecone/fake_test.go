package pinecone_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/pinecone-io/go-pinecone/v5/pinecone"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// fakeAPIKey is the key the fake requires on every call.
const fakeAPIKey = "pc-test-key"

// fake is a local Pinecone data plane: a gRPC server for the VectorService
// the client registers, built from its descriptor with dynamicpb, so no
// generated code is copied. It implements Upsert, Delete, Fetch and Query
// with cosine scoring, Pinecone's filter operators and its limits on batch
// and top_k sizes, rejects anything else, and records every request as
// protojson.
type fake struct {
	dims int

	mu       sync.Mutex
	spaces   map[string]map[string]record // namespace → id → record
	requests []request
}

type record struct {
	values   []float64
	metadata map[string]any
}

// request is one call the fake received.
type request struct {
	Method string
	Body   map[string]any
	APIKey string
}

// startFake serves the fake on a free 127.0.0.1 port until t ends and
// returns it with the client's host URL for it.
func startFake(t *testing.T, dims int) (*fake, string) {
	t.Helper()
	f := &fake{dims: dims, spaces: map[string]map[string]record{}}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName("VectorService")
	require.NoError(t, err, "go-pinecone registers the VectorService descriptor")
	sd := d.(protoreflect.ServiceDescriptor)
	desc := grpc.ServiceDesc{ServiceName: string(sd.FullName()), HandlerType: (*any)(nil)}
	for i := range sd.Methods().Len() {
		m := sd.Methods().Get(i)
		desc.Methods = append(desc.Methods, grpc.MethodDesc{MethodName: string(m.Name()), Handler: f.handler(m)})
	}
	srv := grpc.NewServer()
	srv.RegisterService(&desc, f)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return f, "http://" + lis.Addr().String()
}

// handler decodes the request as a dynamic message of the method's input
// type, serves it as JSON and encodes the reply as its output type.
func (f *fake) handler(m protoreflect.MethodDescriptor) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	return func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		in := dynamicpb.NewMessage(m.Input())
		if err := dec(in); err != nil {
			return nil, err
		}
		raw, err := protojson.Marshal(in)
		if err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		md, _ := metadata.FromIncomingContext(ctx)
		key := ""
		if ks := md.Get("api-key"); len(ks) > 0 {
			key = ks[0]
		}
		f.mu.Lock()
		f.requests = append(f.requests, request{Method: string(m.Name()), Body: body, APIKey: key})
		f.mu.Unlock()
		if key != fakeAPIKey {
			return nil, status.Error(codes.Unauthenticated, "missing or wrong api-key")
		}
		reply, err := f.serve(string(m.Name()), body)
		if err != nil {
			return nil, err
		}
		raw, err = json.Marshal(reply)
		if err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		out := dynamicpb.NewMessage(m.Output())
		if err := protojson.Unmarshal(raw, out); err != nil {
			return nil, status.Errorf(codes.Internal, "reply does not fit %s: %v", m.Output().FullName(), err)
		}
		return out, nil
	}
}

func (f *fake) serve(method string, body map[string]any) (map[string]any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ns, _ := body["namespace"].(string)
	if f.spaces[ns] == nil {
		f.spaces[ns] = map[string]record{}
	}
	space := f.spaces[ns]
	switch method {
	case "Upsert":
		vecs, _ := body["vectors"].([]any)
		if len(vecs) == 0 || len(vecs) > 1000 {
			return nil, status.Errorf(codes.InvalidArgument, "upsert takes 1 to 1000 vectors, got %d", len(vecs))
		}
		for _, v := range vecs {
			v := v.(map[string]any)
			values := floats(v["values"])
			if len(values) != f.dims {
				return nil, status.Errorf(codes.InvalidArgument, "Vector dimension %d does not match the dimension of the index %d", len(values), f.dims)
			}
			meta, _ := v["metadata"].(map[string]any)
			space[v["id"].(string)] = record{values: values, metadata: meta}
		}
		return map[string]any{"upsertedCount": len(vecs)}, nil
	case "Delete":
		for _, id := range body["ids"].([]any) {
			delete(space, id.(string))
		}
		return map[string]any{}, nil
	case "Query":
		return f.query(space, body)
	case "Fetch":
		ids, _ := body["ids"].([]any)
		if len(ids) == 0 || len(ids) > 1000 {
			return nil, status.Errorf(codes.InvalidArgument, "fetch takes 1 to 1000 ids, got %d", len(ids))
		}
		vecs := map[string]any{}
		for _, id := range ids {
			if r, ok := space[id.(string)]; ok {
				v := map[string]any{"id": id, "values": r.values}
				if r.metadata != nil {
					v["metadata"] = r.metadata
				}
				vecs[id.(string)] = v
			}
		}
		return map[string]any{"vectors": vecs, "namespace": body["namespace"]}, nil
	}
	return nil, status.Errorf(codes.Unimplemented, "the fake does not serve %s", method)
}

func (f *fake) query(space map[string]record, body map[string]any) (map[string]any, error) {
	q := floats(body["vector"])
	if len(q) != f.dims {
		return nil, status.Errorf(codes.InvalidArgument, "Query vector dimension %d does not match the dimension of the index %d", len(q), f.dims)
	}
	topK, _ := body["topK"].(float64)
	if topK < 1 || topK > 10000 {
		return nil, status.Errorf(codes.InvalidArgument, "top_k must be in [1, 10000], got %v", topK)
	}
	if (body["includeValues"] == true || body["includeMetadata"] == true) && topK > 1000 {
		return nil, status.Errorf(codes.InvalidArgument, "top_k must be at most 1000 when including values or metadata, got %v", topK)
	}
	filter, _ := body["filter"].(map[string]any)
	type hit struct {
		id    string
		score float64
	}
	var hits []hit
	for id, r := range space {
		if filter != nil {
			ok, err := matchFilter(filter, r.metadata)
			if err != nil {
				return nil, status.Error(codes.InvalidArgument, err.Error())
			}
			if !ok {
				continue
			}
		}
		hits = append(hits, hit{id, cosine(q, r.values)})
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	hits = hits[:min(len(hits), int(topK))]
	matches := make([]any, len(hits))
	for i, h := range hits {
		m := map[string]any{"id": h.id, "score": h.score}
		if body["includeValues"] == true {
			m["values"] = space[h.id].values
		}
		if body["includeMetadata"] == true && space[h.id].metadata != nil {
			m["metadata"] = space[h.id].metadata
		}
		matches[i] = m
	}
	return map[string]any{"matches": matches, "namespace": body["namespace"]}, nil
}

// matchFilter evaluates Pinecone's filter language: {"field": {"$op":
// value}} or {"field": value} (implicit $eq), with $and and $or over lists.
// A list field matches $eq and $in when any element does; values of
// different types never match; ranges apply to numbers.
func matchFilter(filter map[string]any, meta map[string]any) (bool, error) {
	for key, cond := range filter {
		var ok bool
		var err error
		switch key {
		case "$and", "$or":
			subs, isList := cond.([]any)
			if !isList || len(subs) == 0 {
				return false, fmt.Errorf("%s needs a non-empty list", key)
			}
			ok = key == "$and"
			for _, s := range subs {
				m, err := matchFilter(s.(map[string]any), meta)
				if err != nil {
					return false, err
				}
				if key == "$and" {
					ok = ok && m
				} else {
					ok = ok || m
				}
			}
		default:
			ok, err = matchField(meta[key], key, cond)
		}
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func matchField(field any, key string, cond any) (bool, error) {
	ops, isOps := cond.(map[string]any)
	if !isOps {
		ops = map[string]any{"$eq": cond}
	}
	for op, want := range ops {
		var ok bool
		switch op {
		case "$eq":
			ok = equalAny(field, want)
		case "$in":
			list, isList := want.([]any)
			if !isList {
				return false, fmt.Errorf("$in on %q needs a list", key)
			}
			for _, w := range list {
				if _, isBool := w.(bool); isBool {
					return false, fmt.Errorf("$in on %q takes strings or numbers, got a bool", key)
				}
				ok = ok || equalAny(field, w)
			}
		case "$gt", "$gte", "$lt", "$lte":
			bound, isNum := want.(float64)
			if !isNum {
				return false, fmt.Errorf("%s on %q needs a number", op, key)
			}
			n, isNum := field.(float64)
			ok = isNum && map[string]bool{"$gt": n > bound, "$gte": n >= bound, "$lt": n < bound, "$lte": n <= bound}[op]
		default:
			return false, fmt.Errorf("the fake does not implement %s", op)
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

func equalAny(field, want any) bool {
	if list, ok := field.([]any); ok {
		return slices.Contains(list, want)
	}
	return field != nil && field == want
}

func floats(v any) []float64 {
	list, _ := v.([]any)
	out := make([]float64, len(list))
	for i, x := range list {
		out[i], _ = x.(float64)
	}
	return out
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

// calls returns the requests received so far for method, or all of them
// for "".
func (f *fake) calls(method string) []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []request
	for _, r := range f.requests {
		if method == "" || r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// connect opens an index connection to the fake for namespace, closed when
// t ends.
func connect(t *testing.T, host, namespace string) *pinecone.IndexConnection {
	t.Helper()
	pc, err := pinecone.NewClient(pinecone.NewClientParams{ApiKey: fakeAPIKey})
	require.NoError(t, err)
	idx, err := pc.Index(pinecone.NewIndexConnParams{Host: host, Namespace: namespace})
	require.NoError(t, err)
	t.Cleanup(func() { _ = idx.Close() })
	return idx
}
