package jsonschema

import (
	"fmt"
	"strings"

	gs "github.com/google/jsonschema-go/jsonschema"
)

// refuseInPlaceCycles refuses a schema in which a reference leads back to
// the same place in the data without descending into it ("$defs": {"a":
// {"$ref": "#/$defs/a"}}, or through allOf, anyOf, oneOf, not, if, then,
// else and the dependent schemas): the validator would recurse until the
// Go stack overflows, which kills the process.
func refuseInPlaceCycles(root *gs.Schema) error {
	x := &explainer{root: root}
	ids := map[string]*gs.Schema{}
	eachNode(root, func(s *gs.Schema) {
		if s.ID != "" {
			ids[strings.TrimSuffix(s.ID, "#")] = s
		}
	})
	const (
		unseen = iota
		open
		done
	)
	state := map[*gs.Schema]int{}
	var visit func(s *gs.Schema) error
	visit = func(s *gs.Schema) error {
		if s == nil {
			return nil
		}
		switch state[s] {
		case open:
			return fmt.Errorf("a reference leads back to the same place in the data without descending into it (at %q)", where(s))
		case done:
			return nil
		}
		state[s] = open
		var next []*gs.Schema
		if s.Ref != "" {
			next = append(next, x.resolveAny(s.Ref, ids)...)
		}
		if s.DynamicRef != "" {
			name := s.DynamicRef[strings.LastIndex(s.DynamicRef, "#")+1:]
			eachNode(root, func(n *gs.Schema) {
				if n.DynamicAnchor == name || n.Anchor == name {
					next = append(next, n)
				}
			})
			next = append(next, x.resolveAny(s.DynamicRef, ids)...)
		}
		next = append(next, s.AllOf...)
		next = append(next, s.AnyOf...)
		next = append(next, s.OneOf...)
		next = append(next, s.Not, s.If, s.Then, s.Else)
		for _, d := range s.DependentSchemas {
			next = append(next, d)
		}
		for _, d := range s.DependencySchemas {
			next = append(next, d)
		}
		for _, n := range next {
			if err := visit(n); err != nil {
				return err
			}
		}
		state[s] = done
		return nil
	}
	var err error
	eachNode(root, func(s *gs.Schema) {
		if err == nil {
			err = visit(s)
		}
	})
	return err
}

// resolveAny finds the schemas a reference may name: a same-document
// reference, or one whose part before "#" is a "$id" in the schema
// (exactly, or as its last path segment).
func (x *explainer) resolveAny(ref string, ids map[string]*gs.Schema) []*gs.Schema {
	if strings.HasPrefix(ref, "#") {
		if t := x.ref(ref); t != nil {
			return []*gs.Schema{t}
		}
		return nil
	}
	doc, frag, _ := strings.Cut(ref, "#")
	var found []*gs.Schema
	for id, s := range ids {
		if id == doc || strings.HasSuffix(id, "/"+doc) {
			sub := &explainer{root: s}
			if t := sub.ref("#" + frag); t != nil {
				found = append(found, t)
			}
		}
	}
	return found
}

// where names a schema for a message: its "$ref", or its "$id".
func where(s *gs.Schema) string {
	if s.Ref != "" {
		return s.Ref
	}
	if s.DynamicRef != "" {
		return s.DynamicRef
	}
	return s.ID
}
