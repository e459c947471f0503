package weaviate_test

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// gqlGet is the one GraphQL shape the store sends:
// {Get {Class (args) {fields}}}.
type gqlGet struct {
	class  string
	args   map[string]any
	fields []gqlField
}

type gqlField struct {
	name   string
	fields []gqlField
}

// parseGet parses a Get query. Arguments are GraphQL input values:
// objects, lists, strings, numbers, booleans, null and enum names (kept as
// strings).
func parseGet(query string) (gqlGet, error) {
	p := &gqlParser{toks: tokenize(query)}
	var g gqlGet
	if err := p.expect("{", "Get", "{"); err != nil {
		return g, err
	}
	g.class = p.next()
	if p.peek() == "(" {
		v, err := p.value()
		if err != nil {
			return g, err
		}
		g.args = v.(map[string]any)
	}
	fields, err := p.fields()
	if err != nil {
		return g, err
	}
	g.fields = fields
	if err := p.expect("}", "}"); err != nil {
		return g, err
	}
	if p.pos != len(p.toks) {
		return g, fmt.Errorf("trailing tokens after the query: %v", p.toks[p.pos:])
	}
	return g, nil
}

type gqlParser struct {
	toks []string
	pos  int
}

func (p *gqlParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *gqlParser) next() string {
	t := p.peek()
	p.pos++
	return t
}

func (p *gqlParser) expect(toks ...string) error {
	for _, want := range toks {
		if got := p.next(); got != want {
			return fmt.Errorf("want %q at token %d, got %q", want, p.pos-1, got)
		}
	}
	return nil
}

// fields parses { name name { ... } }.
func (p *gqlParser) fields() ([]gqlField, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var out []gqlField
	for p.peek() != "}" {
		name := p.next()
		if name == "" {
			return nil, fmt.Errorf("unterminated selection")
		}
		f := gqlField{name: name}
		if p.peek() == "{" {
			sub, err := p.fields()
			if err != nil {
				return nil, err
			}
			f.fields = sub
		}
		out = append(out, f)
	}
	p.next()
	return out, nil
}

func (p *gqlParser) value() (any, error) {
	t := p.next()
	switch {
	case t == "{" || t == "(":
		end := map[string]string{"{": "}", "(": ")"}[t]
		obj := map[string]any{}
		for p.peek() != end {
			if p.peek() == "," {
				p.next()
				continue
			}
			key := p.next()
			if err := p.expect(":"); err != nil {
				return nil, err
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			obj[key] = v
		}
		p.next()
		return obj, nil
	case t == "[":
		list := []any{}
		for p.peek() != "]" {
			if p.peek() == "," {
				p.next()
				continue
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		p.next()
		return list, nil
	case strings.HasPrefix(t, `"`):
		return strconv.Unquote(t)
	case t == "true" || t == "false":
		return t == "true", nil
	case t == "null":
		return nil, nil
	case t != "" && (t[0] == '-' || unicode.IsDigit(rune(t[0]))):
		return strconv.ParseFloat(t, 64)
	case t != "" && (unicode.IsLetter(rune(t[0])) || t[0] == '_'):
		return t, nil // an enum value
	}
	return nil, fmt.Errorf("unexpected token %q", t)
}

// tokenize splits a query into punctuation, names, numbers and quoted
// strings (kept with their quotes).
func tokenize(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			i++
		case strings.IndexByte("{}[]():,", c) >= 0:
			out = append(out, string(c))
			i++
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, s[i:min(j+1, len(s))])
			i = j + 1
		default:
			j := i
			for j < len(s) && strings.IndexByte("{}[]():, \n\t\r\"", s[j]) < 0 {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out
}
