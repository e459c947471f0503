package weaviate_test

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// fake is a local Weaviate: the REST endpoints the store and client use
// (ready, meta, schema, batch objects create and delete) and the GraphQL
// Get shape the store sends, parsed by parseGet. Properties have the types
// of the class schema, which batches and filters are checked against, as
// a Weaviate with auto-schema off does. It records every request.
type fake struct {
	srv *httptest.Server

	mu       sync.Mutex
	classes  map[string]*class
	requests []request
}

type class struct {
	def     map[string]any    // the class as created
	props   map[string]string // property → data type
	objects map[string]object // by UUID
}

type object struct {
	props  map[string]any
	vector []float64
}

// request is one call the fake received.
type request struct {
	Method, Path string
	Body         any
}

func startFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{classes: map[string]*class{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// host returns the host:port the client connects to.
func (f *fake) host() string { return strings.TrimPrefix(f.srv.URL, "http://") }

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	var body any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, request{Method: r.Method, Path: r.URL.Path, Body: body})
	obj, _ := body.(map[string]any)
	path := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	status, reply := http.StatusOK, any(map[string]any{})
	fail := func(code int, format string, args ...any) {
		status, reply = code, map[string]any{"error": []any{map[string]any{"message": fmt.Sprintf(format, args...)}}}
	}
	switch {
	case r.URL.Path == "/v1/.well-known/ready":
	case r.URL.Path == "/v1/meta":
		reply = map[string]any{"version": "1.39.3", "hostname": "http://[::]:8080"}
	case r.Method == http.MethodGet && r.URL.Path == "/v1/schema":
		var defs []any
		for _, name := range slices.Sorted(maps.Keys(f.classes)) {
			defs = append(defs, f.classes[name].def)
		}
		reply = map[string]any{"classes": defs}
	case r.Method == http.MethodGet && len(path) == 3 && path[1] == "schema":
		c := f.classes[path[2]]
		if c == nil {
			fail(http.StatusNotFound, "class %s not found", path[2])
			break
		}
		reply = c.def
	case r.Method == http.MethodPost && r.URL.Path == "/v1/schema":
		name, _ := obj["class"].(string)
		if other := foldFind(maps.Keys(f.classes), name); other != "" {
			// As Weaviate: class names are compared case-insensitively.
			fail(http.StatusUnprocessableEntity, "class already exists: found similar class %q", other)
			break
		}
		c := &class{def: obj, props: map[string]string{}, objects: map[string]object{}}
		for _, p := range list(obj["properties"]) {
			p := p.(map[string]any)
			c.props[p["name"].(string)] = list(p["dataType"])[0].(string)
		}
		f.classes[name] = c
		reply = obj
	case r.Method == http.MethodPost && len(path) == 4 && path[1] == "schema" && path[3] == "properties":
		c := f.classes[path[2]]
		name, _ := obj["name"].(string)
		switch {
		case c == nil:
			fail(http.StatusNotFound, "class %s not found", path[2])
		case foldFind(maps.Keys(c.props), name) != "":
			// As Weaviate: property names are compared case-insensitively.
			fail(http.StatusUnprocessableEntity, "class %q: conflict for property %q: already in use or provided multiple times", path[2], name)
		default:
			c.props[name] = list(obj["dataType"])[0].(string)
			c.def["properties"] = append(list(c.def["properties"]), obj)
			reply = obj
		}
	case r.Method == http.MethodPost && r.URL.Path == "/v1/batch/objects":
		reply = f.batch(obj)
	case r.Method == http.MethodDelete && r.URL.Path == "/v1/batch/objects":
		var err error
		if reply, err = f.batchDelete(obj); err != nil {
			fail(http.StatusUnprocessableEntity, "%v", err)
		}
	case r.Method == http.MethodPost && r.URL.Path == "/v1/graphql":
		reply = f.graphql(obj)
	default:
		fail(http.StatusNotFound, "the fake does not serve %s %s", r.Method, r.URL.Path)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(reply)
}

// batch stores objects, replacing any with the same id; an object with a
// property the class lacks, or of another type, fails alone.
func (f *fake) batch(body map[string]any) []any {
	var out []any
	for _, o := range list(body["objects"]) {
		o := o.(map[string]any)
		res := map[string]any{"id": o["id"], "class": o["class"], "properties": o["properties"]}
		c := f.classes[o["class"].(string)]
		var err error
		if c == nil {
			err = fmt.Errorf("class %v not found", o["class"])
		} else {
			props, _ := o["properties"].(map[string]any)
			for k, v := range props {
				if e := checkType(c.props[k], k, v); e != nil {
					err = e
				}
			}
			if err == nil {
				var vec []float64
				for _, x := range list(o["vector"]) {
					vec = append(vec, x.(float64))
				}
				c.objects[o["id"].(string)] = object{props: props, vector: vec}
			}
		}
		result := map[string]any{}
		if err != nil {
			result["errors"] = map[string]any{"error": []any{map[string]any{"message": err.Error()}}}
		}
		res["result"] = result
		out = append(out, res)
	}
	return out
}

func checkType(typ, name string, v any) error {
	ok := false
	switch typ {
	case "":
		return fmt.Errorf("no such prop with name '%s' found in class in the schema", name)
	case "text":
		_, ok = v.(string)
	case "number":
		_, ok = v.(float64)
	case "boolean":
		_, ok = v.(bool)
	case "text[]":
		_, ok = v.([]any)
	}
	if !ok {
		return fmt.Errorf("invalid %s property '%s': %v", typ, name, v)
	}
	return nil
}

func (f *fake) batchDelete(body map[string]any) (any, error) {
	match, _ := body["match"].(map[string]any)
	c := f.classes[fmt.Sprint(match["class"])]
	if c == nil {
		return nil, fmt.Errorf("class %v not found", match["class"])
	}
	where, _ := match["where"].(map[string]any)
	n := 0
	for id, o := range c.objects {
		ok, err := c.matchObject(where, id, o.props)
		if err != nil {
			return nil, err
		}
		if ok {
			delete(c.objects, id)
			n++
		}
	}
	return map[string]any{"match": match, "results": map[string]any{"matches": n, "successful": n, "failed": 0, "limit": 10000}}, nil
}

func (f *fake) graphql(body map[string]any) any {
	errReply := func(err error) any {
		return map[string]any{"errors": []any{map[string]any{"message": err.Error()}}}
	}
	q, err := parseGet(fmt.Sprint(body["query"]))
	if err != nil {
		return errReply(err)
	}
	c := f.classes[q.class]
	if c == nil {
		return errReply(fmt.Errorf("Cannot query field %q on type \"GetObjectsObj\"", q.class))
	}
	near, _ := q.args["nearVector"].(map[string]any)
	var qv []float64
	for _, x := range list(near["vector"]) {
		qv = append(qv, x.(float64))
	}
	limit, _ := q.args["limit"].(float64)
	if len(qv) == 0 || limit < 1 {
		return errReply(fmt.Errorf("the fake needs nearVector.vector and a positive limit"))
	}
	if limit > 10000 {
		return errReply(fmt.Errorf("query maximum results exceeded: limit %v is above QUERY_MAXIMUM_RESULTS 10000", limit))
	}
	where, _ := q.args["where"].(map[string]any)
	type hit struct {
		id   string
		dist float64
	}
	var hits []hit
	for id, o := range c.objects {
		if len(o.vector) != len(qv) {
			return errReply(fmt.Errorf("vector lengths don't match: %d vs %d", len(qv), len(o.vector)))
		}
		if where != nil {
			ok, err := c.match(where, o.props)
			if err != nil {
				return errReply(err)
			}
			if !ok {
				continue
			}
		}
		hits = append(hits, hit{id, 1 - cosine(qv, o.vector)})
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].dist < hits[j].dist })
	hits = hits[:min(len(hits), int(limit))]
	objs := []any{}
	for _, h := range hits {
		o := c.objects[h.id]
		out := map[string]any{}
		for _, fl := range q.fields {
			if fl.name != "_additional" {
				if c.props[fl.name] == "" {
					return errReply(fmt.Errorf("Cannot query field %q on type %q", fl.name, q.class))
				}
				out[fl.name] = o.props[fl.name]
				continue
			}
			add := map[string]any{}
			for _, a := range fl.fields {
				switch a.name {
				case "id":
					add["id"] = h.id
				case "distance":
					add["distance"] = h.dist
				case "vector":
					add["vector"] = o.vector
				}
			}
			out["_additional"] = add
		}
		objs = append(objs, out)
	}
	return map[string]any{"data": map[string]any{"Get": map[string]any{q.class: objs}}}
}

// matchObject is match with the path "id" meaning the object's UUID, as
// Weaviate's where filters take it.
func (c *class) matchObject(w map[string]any, id string, props map[string]any) (bool, error) {
	if p := list(w["path"]); len(p) == 1 && p[0] == "id" {
		if w["operator"] != "ContainsAny" && w["operator"] != "Equal" {
			return false, fmt.Errorf("the fake filters ids with Equal or ContainsAny")
		}
		texts := list(w["valueTextArray"])
		if s, ok := w["valueText"].(string); ok {
			texts = append(texts, s)
		}
		return slices.Contains(texts, any(id)), nil
	}
	return c.match(w, props)
}

// match evaluates a where filter, from GraphQL or from a batch delete's
// JSON: And and Or over operands; Equal, ContainsAny and the ranges on a
// property of the value's type. A property the class lacks, or a value of
// another type, is an error, as in Weaviate; a missing value never
// matches.
func (c *class) match(w map[string]any, props map[string]any) (bool, error) {
	op := fmt.Sprint(w["operator"])
	if op == "And" || op == "Or" {
		ops := list(w["operands"])
		if len(ops) == 0 {
			return false, fmt.Errorf("%s needs operands", op)
		}
		for _, o := range ops {
			ok, err := c.match(o.(map[string]any), props)
			if err != nil {
				return false, err
			}
			if ok != (op == "And") {
				return ok, nil
			}
		}
		return op == "And", nil
	}
	path := list(w["path"])
	if len(path) != 1 {
		return false, fmt.Errorf("the fake takes one-element paths, got %v", w["path"])
	}
	name := path[0].(string)
	typ := c.props[name]
	if typ == "" {
		return false, fmt.Errorf("no such prop with name '%s' found in class in the schema", name)
	}
	texts := append(list(w["valueTextArray"]), list(w["valueText"])...)
	if s, ok := w["valueText"].(string); ok {
		texts = append(texts, s)
	}
	v, present := props[name]
	switch op {
	case "Equal":
		switch {
		case len(texts) == 1 && typ == "text":
			// Field tokenization: the value trimmed of white space.
			sv, _ := v.(string)
			return present && strings.TrimSpace(sv) == strings.TrimSpace(fmt.Sprint(texts[0])), nil
		case w["valueNumber"] != nil && typ == "number":
			return present && v == w["valueNumber"], nil
		case w["valueBoolean"] != nil && typ == "boolean":
			return present && v == w["valueBoolean"], nil
		}
		return false, fmt.Errorf("data type of %s does not match the value of %v", typ, w)
	case "ContainsAny":
		if typ != "text" && typ != "text[]" || len(texts) == 0 {
			return false, fmt.Errorf("ContainsAny on %s %s needs text values", typ, name)
		}
		elems := list(v)
		if s, ok := v.(string); ok {
			elems = []any{s}
		}
		// Field tokenization: values trimmed of white space.
		for _, t := range texts {
			for _, e := range elems {
				if strings.TrimSpace(fmt.Sprint(e)) == strings.TrimSpace(fmt.Sprint(t)) {
					return true, nil
				}
			}
		}
		return false, nil
	case "GreaterThan", "GreaterThanEqual", "LessThan", "LessThanEqual":
		bound, ok := w["valueNumber"].(float64)
		if !ok || typ != "number" {
			return false, fmt.Errorf("%s on %s %s needs valueNumber", op, typ, name)
		}
		n, ok := v.(float64)
		return ok && map[string]bool{"GreaterThan": n > bound, "GreaterThanEqual": n >= bound, "LessThan": n < bound, "LessThanEqual": n <= bound}[op], nil
	}
	return false, fmt.Errorf("the fake does not implement operator %s", op)
}

// foldFind returns the name among names equal to name ignoring case, or
// "".
func foldFind(names iter.Seq[string], name string) string {
	for n := range names {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return ""
}

func list(v any) []any { l, _ := v.([]any); return l }

func cosine(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

// calls returns the requests so far with this method and path suffix.
func (f *fake) calls(method, suffix string) []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []request
	for _, r := range f.requests {
		if r.Method == method && strings.HasSuffix(r.Path, suffix) {
			out = append(out, r)
		}
	}
	return out
}
