package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	gs "github.com/google/jsonschema-go/jsonschema"
)

// explainer finds where and why data breaks a schema the validator has
// already refused, so that each broken rule is reported at its own place
// (the validator stops at its first error and names the schema's place,
// not the data's). It walks the keywords that apply to a place in the
// data; those it cannot follow (remote and "$id"-relative references,
// "$dynamicRef", "unevaluatedItems") it skips,
// and [Schema.Check] falls back to the validator's own message when it
// finds nothing. It never decides whether data is valid.
type explainer struct {
	root   *gs.Schema
	draft7 bool
	steps  int // schema nodes visited, bounded by maxSteps
	res    map[string]*regexp.Regexp
}

// maxSteps bounds one explanation (a "$ref" cycle that consumes no data,
// or a schema that is large and deep).
const maxSteps = 20000

func (x *explainer) explain(s *gs.Schema, v any, path []string, out *[]Issue) {
	x.steps++
	if s == nil || x.steps > maxSteps {
		return
	}
	add := func(rule string) { *out = append(*out, Issue{Path: path, Rule: rule}) }
	at := func(name string) []string { return append(path[:len(path):len(path)], name) }

	if isFalse(s) {
		add("no value is allowed here")
		return
	}
	if s.Ref != "" {
		if t := x.ref(s.Ref); t != nil {
			x.explain(t, v, path, out)
		}
		if x.draft7 {
			return // draft-07: keywords beside "$ref" are ignored
		}
	}
	if s.Type != "" || s.Types != nil {
		want := s.Types
		if s.Type != "" {
			want = []string{s.Type}
		}
		if !typeMatches(want, v) {
			add(fmt.Sprintf("expected %s, got %s", strings.Join(want, " or "), jsonTypeName(v)))
			return
		}
	}
	if s.Enum != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return equal(e, v) }) {
		vals := make([]string, 0, len(s.Enum))
		for i, e := range s.Enum {
			if i == 8 {
				vals = append(vals, "…")
				break
			}
			vals = append(vals, short(e))
		}
		add("value must be one of " + strings.Join(vals, ", "))
	}
	if s.Const != nil && !equal(*s.Const, v) {
		add("value must be " + short(*s.Const))
	}
	switch v := v.(type) {
	case float64:
		x.number(s, v, add)
	case string:
		x.str(s, v, add)
	case []any:
		x.array(s, v, path, at, add, out)
	case map[string]any:
		x.object(s, v, path, at, add, out)
	}
	for _, sub := range s.AllOf {
		x.explain(sub, v, path, out)
	}
	if len(s.AnyOf) > 0 {
		x.anyOf(s.AnyOf, v, path, add, out)
	}
	if len(s.OneOf) > 0 {
		var matched []string
		for i, sub := range s.OneOf {
			if x.matches(sub, v, path) {
				matched = append(matched, strconv.Itoa(i))
			}
		}
		switch len(matched) {
		case 0:
			x.anyOf(s.OneOf, v, path, add, out)
		case 1:
		default:
			add("matches more than one of the oneOf schemas (" + strings.Join(matched, " and ") + ")")
		}
	}
	if s.Not != nil && x.matches(s.Not, v, path) {
		add("must not match the schema under \"not\"")
	}
	if s.If != nil {
		if x.matches(s.If, v, path) {
			x.explain(s.Then, v, path, out)
		} else {
			x.explain(s.Else, v, path, out)
		}
	}
}

// matches reports whether v meets s as far as the explainer sees.
func (x *explainer) matches(s *gs.Schema, v any, path []string) bool {
	var found []Issue
	x.explain(s, v, path, &found)
	return len(found) == 0
}

// anyOf explains data that meets none of subs: when every alternative
// fails on its type alone ("a string or null"), as one type rule;
// otherwise as one rule naming how many alternatives there were.
func (x *explainer) anyOf(subs []*gs.Schema, v any, path []string, add func(string), out *[]Issue) {
	var want []string
	for _, sub := range subs {
		var found []Issue
		x.explain(sub, v, path, &found)
		if len(found) == 0 {
			return
		}
		t, ok := typeOnly(found, path)
		if !ok {
			want = nil
			break
		}
		want = append(want, t)
	}
	if want != nil {
		add(fmt.Sprintf("expected %s, got %s", strings.Join(want, " or "), jsonTypeName(v)))
		return
	}
	add(fmt.Sprintf("matches none of the %d allowed schemas", len(subs)))
}

// typeOnly returns the wanted types of found when it is one type rule at
// path.
func typeOnly(found []Issue, path []string) (string, bool) {
	if len(found) != 1 || !slices.Equal(found[0].Path, path) {
		return "", false
	}
	want, ok := strings.CutPrefix(found[0].Rule, "expected ")
	if !ok {
		return "", false
	}
	want, _, ok = strings.Cut(want, ", got ")
	return want, ok
}

func (x *explainer) number(s *gs.Schema, n float64, add func(string)) {
	f := formatNumber
	if s.MultipleOf != nil && *s.MultipleOf != 0 {
		if _, frac := math.Modf(n / *s.MultipleOf); frac != 0 {
			add(fmt.Sprintf("multipleOf: got %s, want a multiple of %s", f(n), f(*s.MultipleOf)))
		}
	}
	if s.Minimum != nil && n < *s.Minimum {
		add(fmt.Sprintf("minimum: got %s, want %s", f(n), f(*s.Minimum)))
	}
	if s.Maximum != nil && n > *s.Maximum {
		add(fmt.Sprintf("maximum: got %s, want %s", f(n), f(*s.Maximum)))
	}
	if s.ExclusiveMinimum != nil && n <= *s.ExclusiveMinimum {
		add(fmt.Sprintf("exclusiveMinimum: got %s, want more than %s", f(n), f(*s.ExclusiveMinimum)))
	}
	if s.ExclusiveMaximum != nil && n >= *s.ExclusiveMaximum {
		add(fmt.Sprintf("exclusiveMaximum: got %s, want less than %s", f(n), f(*s.ExclusiveMaximum)))
	}
}

func (x *explainer) str(s *gs.Schema, str string, add func(string)) {
	n := utf8.RuneCountInString(str)
	if s.MinLength != nil && n < *s.MinLength {
		add(fmt.Sprintf("minLength: got %d, want %d", n, *s.MinLength))
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		add(fmt.Sprintf("maxLength: got %d, want %d", n, *s.MaxLength))
	}
	if s.Pattern != "" {
		if re := x.regexp(s.Pattern); re != nil && !re.MatchString(str) {
			add(fmt.Sprintf("does not match pattern %s", short(s.Pattern)))
		}
	}
}

func (x *explainer) array(s *gs.Schema, a []any, path []string, at func(string) []string, add func(string), out *[]Issue) {
	prefix, rest := s.PrefixItems, s.Items
	if x.draft7 {
		prefix, rest = s.ItemsArray, s.Items
		if s.ItemsArray != nil {
			rest = s.AdditionalItems
		}
	}
	for i, item := range a {
		sub := rest
		if i < len(prefix) {
			sub = prefix[i]
		}
		x.explain(sub, item, at(strconv.Itoa(i)), out)
	}
	if s.MinItems != nil && len(a) < *s.MinItems {
		add(fmt.Sprintf("minItems: got %d, want %d", len(a), *s.MinItems))
	}
	if s.MaxItems != nil && len(a) > *s.MaxItems {
		add(fmt.Sprintf("maxItems: got %d, want %d", len(a), *s.MaxItems))
	}
	if s.UniqueItems {
		seen := make(map[string]int, len(a))
		for i, item := range a {
			key, err := json.Marshal(item) // object keys sorted: equal values, equal keys
			if err != nil {
				break
			}
			if j, dup := seen[string(key)]; dup {
				add(fmt.Sprintf("uniqueItems: items at %d and %d are equal", j, i))
				break
			}
			seen[string(key)] = i
		}
	}
	if s.Contains != nil {
		n := 0
		for i, item := range a {
			if x.matches(s.Contains, item, at(strconv.Itoa(i))) {
				n++
			}
		}
		switch {
		case s.MinContains != nil && n < *s.MinContains:
			add(fmt.Sprintf("minContains: %d items match \"contains\", want at least %d", n, *s.MinContains))
		case s.MinContains == nil && n == 0:
			add("contains: no item matches")
		case s.MaxContains != nil && n > *s.MaxContains:
			add(fmt.Sprintf("maxContains: %d items match \"contains\", want at most %d", n, *s.MaxContains))
		}
	}
}

func (x *explainer) object(s *gs.Schema, o map[string]any, path []string, at func(string) []string, add func(string), out *[]Issue) {
	names := make([]string, 0, len(o))
	for k := range o {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, r := range s.Required {
		if _, ok := o[r]; !ok {
			*out = append(*out, Issue{Path: at(r), Rule: "required"})
		}
	}
	deps := s.DependentRequired
	if x.draft7 {
		deps = s.DependencyStrings
	}
	for _, k := range names {
		for _, r := range deps[k] {
			if _, ok := o[r]; !ok {
				*out = append(*out, Issue{Path: at(r), Rule: fmt.Sprintf("required when %q is present", k)})
			}
		}
	}
	for _, k := range names {
		val := o[k]
		evaluated := false
		if sub, ok := s.Properties[k]; ok {
			x.explain(sub, val, at(k), out)
			evaluated = true
		}
		for p, sub := range s.PatternProperties {
			if re := x.regexp(p); re != nil && re.MatchString(k) {
				x.explain(sub, val, at(k), out)
				evaluated = true
			}
		}
		if !evaluated && s.AdditionalProperties != nil {
			if isFalse(s.AdditionalProperties) {
				*out = append(*out, Issue{Path: at(k), Rule: "unknown field"})
			} else {
				x.explain(s.AdditionalProperties, val, at(k), out)
			}
		}
		if s.PropertyNames != nil {
			var found []Issue
			x.explain(s.PropertyNames, k, at(k), &found)
			for _, f := range found {
				*out = append(*out, Issue{Path: f.Path, Rule: "the name: " + f.Rule})
			}
		}
	}
	if s.MinProperties != nil && len(o) < *s.MinProperties {
		add(fmt.Sprintf("minProperties: got %d, want %d", len(o), *s.MinProperties))
	}
	if s.MaxProperties != nil && len(o) > *s.MaxProperties {
		add(fmt.Sprintf("maxProperties: got %d, want %d", len(o), *s.MaxProperties))
	}
	depSchemas := s.DependentSchemas
	if x.draft7 {
		depSchemas = s.DependencySchemas
	}
	for _, k := range names {
		x.explain(depSchemas[k], o, path, out)
	}
	if s.UnevaluatedProperties != nil {
		seen := map[string]bool{}
		x.evaluated(s, o, path, seen, true)
		for _, k := range names {
			if seen[k] {
				continue
			}
			if isFalse(s.UnevaluatedProperties) {
				*out = append(*out, Issue{Path: at(k), Rule: "unknown field"})
			} else {
				x.explain(s.UnevaluatedProperties, o[k], at(k), out)
			}
		}
	}
}

// evaluated adds to seen the names of o that s evaluates in place: those
// its properties, patternProperties and additionalProperties apply to,
// and those of the subschemas that apply here and match ($ref, allOf,
// the matching anyOf and oneOf alternatives, if/then/else, dependent
// schemas), as "unevaluatedProperties" counts them.
// top is s itself, whose own unevaluatedProperties is the question.
func (x *explainer) evaluated(s *gs.Schema, o map[string]any, path []string, seen map[string]bool, top bool) {
	x.steps++
	if s == nil || x.steps > maxSteps {
		return
	}
	for k := range o {
		if _, ok := s.Properties[k]; ok || s.AdditionalProperties != nil || !top && s.UnevaluatedProperties != nil {
			seen[k] = true
			continue
		}
		for p := range s.PatternProperties {
			if re := x.regexp(p); re != nil && re.MatchString(k) {
				seen[k] = true
			}
		}
	}
	if s.Ref != "" {
		x.evaluated(x.ref(s.Ref), o, path, seen, false)
	}
	for _, sub := range s.AllOf {
		x.evaluated(sub, o, path, seen, false)
	}
	for _, sub := range slices.Concat(s.AnyOf, s.OneOf) {
		if x.matches(sub, o, path) {
			x.evaluated(sub, o, path, seen, false)
		}
	}
	if s.If != nil {
		if x.matches(s.If, o, path) {
			x.evaluated(s.If, o, path, seen, false)
			x.evaluated(s.Then, o, path, seen, false)
		} else {
			x.evaluated(s.Else, o, path, seen, false)
		}
	}
	deps := s.DependentSchemas
	if x.draft7 {
		deps = s.DependencySchemas
	}
	for k, sub := range deps {
		if _, ok := o[k]; ok {
			x.evaluated(sub, o, path, seen, false)
		}
	}
}

// regexp compiles a pattern the validator has already compiled (so it
// compiles), once per explanation.
func (x *explainer) regexp(p string) *regexp.Regexp {
	if re, ok := x.res[p]; ok {
		return re
	}
	re, _ := regexp.Compile(p)
	if x.res == nil {
		x.res = map[string]*regexp.Regexp{}
	}
	x.res[p] = re
	return re
}

// ref finds the schema a same-document reference names: "#", a JSON
// Pointer "#/…", or an anchor "#name". It returns nil for the others.
func (x *explainer) ref(ref string) *gs.Schema {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	if frag == "" {
		return x.root
	}
	if frag[0] != '/' {
		var found *gs.Schema
		eachNode(x.root, func(s *gs.Schema) {
			if found == nil && (s.Anchor == frag || s.DynamicAnchor == frag) {
				found = s
			}
		})
		return found
	}
	toks := strings.Split(frag[1:], "/")
	for i, t := range toks {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		if u, err := unescapePercent(t); err == nil {
			t = u
		}
		toks[i] = t
	}
	cur := x.root
	for i := 0; cur != nil && i < len(toks); i++ {
		next := func() string {
			i++
			if i < len(toks) {
				return toks[i]
			}
			return ""
		}
		index := func(l []*gs.Schema) *gs.Schema {
			n, err := strconv.Atoi(next())
			if err != nil || n < 0 || n >= len(l) {
				return nil
			}
			return l[n]
		}
		switch toks[i] {
		case "$defs":
			cur = cur.Defs[next()]
		case "definitions":
			cur = cur.Definitions[next()]
		case "properties":
			cur = cur.Properties[next()]
		case "patternProperties":
			cur = cur.PatternProperties[next()]
		case "dependentSchemas":
			cur = cur.DependentSchemas[next()]
		case "dependencies":
			cur = cur.DependencySchemas[next()]
		case "items":
			if cur.ItemsArray != nil {
				cur = index(cur.ItemsArray)
			} else {
				cur = cur.Items
			}
		case "prefixItems":
			cur = index(cur.PrefixItems)
		case "allOf":
			cur = index(cur.AllOf)
		case "anyOf":
			cur = index(cur.AnyOf)
		case "oneOf":
			cur = index(cur.OneOf)
		default:
			cur = singleChild(cur, toks[i])
		}
	}
	return cur
}

// singleChild is the subschema of a keyword whose value is one schema.
func singleChild(s *gs.Schema, key string) *gs.Schema {
	switch key {
	case "not":
		return s.Not
	case "if":
		return s.If
	case "then":
		return s.Then
	case "else":
		return s.Else
	case "additionalProperties":
		return s.AdditionalProperties
	case "additionalItems":
		return s.AdditionalItems
	case "contains":
		return s.Contains
	case "propertyNames":
		return s.PropertyNames
	case "unevaluatedItems":
		return s.UnevaluatedItems
	case "unevaluatedProperties":
		return s.UnevaluatedProperties
	case "contentSchema":
		return s.ContentSchema
	}
	return nil
}

// eachNode calls f on s and every schema under it.
func eachNode(s *gs.Schema, f func(*gs.Schema)) {
	if s == nil {
		return
	}
	f(s)
	for _, l := range [][]*gs.Schema{s.PrefixItems, s.ItemsArray, s.AllOf, s.AnyOf, s.OneOf} {
		for _, c := range l {
			eachNode(c, f)
		}
	}
	for _, m := range []map[string]*gs.Schema{s.Defs, s.Definitions, s.Properties, s.PatternProperties, s.DependentSchemas, s.DependencySchemas} {
		for _, c := range m {
			eachNode(c, f)
		}
	}
	for _, c := range []*gs.Schema{s.Items, s.Not, s.If, s.Then, s.Else, s.AdditionalProperties, s.AdditionalItems, s.Contains, s.PropertyNames, s.UnevaluatedItems, s.UnevaluatedProperties, s.ContentSchema} {
		eachNode(c, f)
	}
}

func unescapePercent(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", err
			}
			b.WriteByte(byte(n))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}

// isFalse reports whether s is the schema false (the validator reads
// false as {"not": {}}).
func isFalse(s *gs.Schema) bool {
	if s.Not == nil || !reflect.ValueOf(*s.Not).IsZero() {
		return false
	}
	rest := *s
	rest.Not = nil
	return reflect.ValueOf(rest).IsZero()
}

// typeMatches reports whether v is of one of the JSON types want
// ("integer": a number with no fraction).
func typeMatches(want []string, v any) bool {
	got := jsonTypeName(v)
	for _, w := range want {
		if w == got || w == "integer" && got == "number" && isInteger(v) {
			return true
		}
	}
	return false
}

func isInteger(v any) bool {
	f, ok := v.(float64)
	if !ok || math.IsInf(f, 0) {
		return false
	}
	_, frac := math.Modf(f)
	return frac == 0
}

// jsonTypeName is the JSON type of a decoded value; every number is
// "number".
func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// equal is JSON equality of two decoded values.
func equal(a, b any) bool {
	switch a := a.(type) {
	case []any:
		b, ok := b.([]any)
		return ok && slices.EqualFunc(a, b, equal)
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	case float64:
		switch b := b.(type) {
		case float64:
			return a == b
		case int:
			return a == float64(b)
		}
		return false
	case int:
		return equal(float64(a), b)
	}
	return a == b
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// short formats a value from a schema for a message, at most about 60
// bytes.
func short(v any) string {
	var s string
	switch v := v.(type) {
	case string:
		s = strconv.Quote(v)
	case float64:
		s = formatNumber(v)
	case nil:
		s = "null"
	case bool:
		s = strconv.FormatBool(v)
	default:
		s = jsonTypeName(v)
	}
	if len(s) > 60 {
		cut := 57
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
