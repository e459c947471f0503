package weaviate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/loomwork/loom/vector"
)

// The properties every class of the store has.
const (
	idProperty   = "loom_id"
	textProperty = "loom_text"
)

// Weaviate data types of metadata values.
const (
	typeText    = "text"
	typeTexts   = "text[]"
	typeNumber  = "number"
	typeBoolean = "boolean"
)

var (
	className    = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]{0,230}$`)
	propertyName = regexp.MustCompile(`^[_a-z][_0-9A-Za-z]{0,230}$`)
	reserved     = map[string]bool{idProperty: true, textProperty: true, "id": true, "_id": true, "_additional": true}
)

// dataType returns the Weaviate type of a normalised metadata value.
func dataType(v any) string {
	switch v.(type) {
	case string:
		return typeText
	case []string:
		return typeTexts
	case bool:
		return typeBoolean
	}
	return typeNumber
}

// checkKey rejects a metadata key that cannot be a property of the store.
func checkKey(id, key string) error {
	if reserved[key] {
		return fmt.Errorf("%w: document %q: metadata key %q is reserved by the Weaviate store; rename it", vector.ErrInvalidDocument, id, key)
	}
	if !propertyName.MatchString(key) {
		return fmt.Errorf("%w: document %q: metadata key %q is not a Weaviate property name: use a lower-case letter or underscore, then letters, digits and underscores", vector.ErrInvalidDocument, id, key)
	}
	return nil
}

// loadSchema reads the class, creating it when missing, and returns its
// metadata properties' types. create=false only reads.
func (s *Store) loadSchema(ctx context.Context, create bool) (map[string]string, error) {
	class, err := s.client.Schema().ClassGetter().WithClassName(s.class).Do(ctx)
	var werr *fault.WeaviateClientError
	if create && errors.As(err, &werr) && werr.StatusCode == http.StatusNotFound {
		class = &models.Class{
			Class:             s.class,
			Vectorizer:        "none",
			VectorIndexConfig: map[string]any{"distance": "cosine"},
			Properties: []*models.Property{
				{Name: idProperty, DataType: []string{typeText}, Tokenization: models.PropertyTokenizationField},
				{Name: textProperty, DataType: []string{typeText}},
			},
		}
		if err := s.client.Schema().ClassCreator().WithClass(class).Do(ctx); err != nil {
			if errors.As(err, &werr) && werr.StatusCode == http.StatusUnprocessableEntity {
				if other := s.similarClass(ctx); other != "" {
					return nil, fmt.Errorf("%w: Class %q differs only in case from the existing class %q; Weaviate compares class names case-insensitively, so use that name or another: %w", ErrConfig, s.class, other, err)
				}
				return nil, fmt.Errorf("%w: Class %q: the server refused to create it: %w", ErrConfig, s.class, err)
			}
			return nil, fmt.Errorf("weaviate: create class %s: %w", s.class, err)
		}
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("weaviate: read class %s: %w", s.class, err)
	}
	if cfg, ok := class.VectorIndexConfig.(map[string]any); ok {
		if d, ok := cfg["distance"].(string); ok && d != "cosine" {
			return nil, fmt.Errorf("%w: class %s uses %s distance; the store needs cosine: use another Class", ErrConfig, s.class, d)
		}
	}
	props := map[string]string{}
	for _, p := range class.Properties {
		if p != nil && !reserved[p.Name] && len(p.DataType) > 0 {
			props[p.Name] = p.DataType[0]
		}
	}
	return props, nil
}

// similarClass returns the name of an existing class that differs from
// the store's only in case, or "" when there is none or the schema cannot
// be read.
func (s *Store) similarClass(ctx context.Context) string {
	schema, err := s.client.Schema().Getter().Do(ctx)
	if err != nil || schema == nil {
		return ""
	}
	for _, c := range schema.Classes {
		if c != nil && c.Class != s.class && strings.EqualFold(c.Class, s.class) {
			return c.Class
		}
	}
	return ""
}

// properties returns the cached property types, reading the schema again
// when any of names is unknown.
func (s *Store) properties(ctx context.Context, names []string) (map[string]string, error) {
	s.schemaMu.Lock()
	defer s.schemaMu.Unlock()
	for _, n := range names {
		if _, ok := s.props[n]; !ok {
			props, err := s.loadSchema(ctx, false)
			if err != nil {
				return nil, err
			}
			s.props = props
			break
		}
	}
	return s.props, nil
}

// ensureProperties creates the properties docs need and checks the types
// of those that exist.
func (s *Store) ensureProperties(ctx context.Context, docs []vector.Document) error {
	want := map[string]string{}
	var names []string
	for _, d := range docs {
		for k, v := range d.Metadata {
			if err := checkKey(d.ID, k); err != nil {
				return err
			}
			t := dataType(v)
			if prev, ok := want[k]; ok && prev != t {
				return fmt.Errorf("%w: metadata %q is %s in one document and %s in another; a Weaviate property has one type", vector.ErrInvalidDocument, k, prev, t)
			}
			if _, ok := want[k]; !ok {
				names = append(names, k)
			}
			want[k] = t
		}
	}
	if len(names) == 0 {
		return nil
	}
	if _, err := s.properties(ctx, names); err != nil {
		return err
	}
	s.schemaMu.Lock()
	defer s.schemaMu.Unlock()
	for _, k := range names {
		if _, ok := s.props[k]; !ok {
			if err := s.caseClash(k, names); err != nil {
				return err
			}
		}
	}
	for _, k := range names {
		have, ok := s.props[k]
		if ok {
			if have != want[k] {
				return fmt.Errorf("%w: metadata %q is %s, but class %s holds it as %s; a Weaviate property has one type", vector.ErrInvalidDocument, k, want[k], s.class, have)
			}
			continue
		}
		p := &models.Property{Name: k, DataType: []string{want[k]}}
		if want[k] == typeText || want[k] == typeTexts {
			p.Tokenization = models.PropertyTokenizationField
		}
		if err := s.client.Schema().PropertyCreator().WithClassName(s.class).WithProperty(p).Do(ctx); err != nil {
			// Another process may have added it meanwhile.
			props, rerr := s.loadSchema(ctx, false)
			if rerr != nil || props[k] != want[k] {
				var werr *fault.WeaviateClientError
				if errors.As(err, &werr) && werr.StatusCode == http.StatusUnprocessableEntity {
					return fmt.Errorf("%w: metadata key %q: class %s refused it as a property (Weaviate compares property names case-insensitively, so a key differing only in case may exist): %w", vector.ErrInvalidDocument, k, s.class, err)
				}
				return fmt.Errorf("weaviate: add property %q (%s) to class %s: %w", k, want[k], s.class, err)
			}
			s.props = props
			continue
		}
		s.props[k] = want[k]
	}
	return nil
}

// caseClash rejects a new property name k that differs only in case from
// a property of the class or another key being added: Weaviate compares
// property names case-insensitively and refuses the second. Called with
// schemaMu held.
func (s *Store) caseClash(k string, adding []string) error {
	for _, other := range slices.Concat(slices.Collect(maps.Keys(s.props)), adding, []string{idProperty, textProperty}) {
		if other != k && strings.EqualFold(other, k) {
			return fmt.Errorf("%w: metadata key %q differs only in case from the property %q of class %s; Weaviate property names are case-insensitive, so use one spelling", vector.ErrInvalidDocument, k, other, s.class)
		}
	}
	return nil
}
