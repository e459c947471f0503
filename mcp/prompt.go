package mcp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/loomwork/loom/internal/jsonschema"
)

// field is one property of a requested schema, as elicitation allows
// them: flat, of a primitive type.
type field struct {
	Name        string
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Enum        []string `json:"enum"`
	EnumNames   []string `json:"enumNames"` // labels of Enum, an older form
	OneOf       []option `json:"oneOf"`
	// Items are the choices of a multiple-choice field (type array).
	Items *struct {
		Enum  []string `json:"enum"`
		AnyOf []option `json:"anyOf"`
	} `json:"items"`
	MinItems  *int            `json:"minItems"`
	MaxItems  *int            `json:"maxItems"`
	Default   json.RawMessage `json:"default"`
	MinLength *int            `json:"minLength"`
	MaxLength *int            `json:"maxLength"`
	Minimum   *float64        `json:"minimum"`
	Maximum   *float64        `json:"maximum"`
	Pattern   string          `json:"pattern"`
	Format    string          `json:"format"`
	required  bool
}

// option is one titled choice of a field.
type option struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// AskTerminal answers an elicitation on a terminal: it shows the server's
// message, asks whether to answer, then asks for each field of the
// requested schema, the required ones first, checking each value against its
// field (type, choices, length, range, pattern) and the whole answer
// against the schema, asking again until it fits. readLine returns one
// line of the person's input; out shows the questions.
func AskTerminal(e Elicitation, readLine func() (string, error), out io.Writer) (ElicitAnswer, error) {
	if e.Tool != "" {
		fmt.Fprintf(out, "The MCP tool %s asks: %s\n", e.Tool, e.Message)
	} else {
		fmt.Fprintf(out, "An MCP server asks: %s\n", e.Message)
	}
	if e.URL != "" {
		fmt.Fprintf(out, "Open this URL to go on: %s\n", e.URL)
	}
	fields, err := schemaFields(e.Schema)
	if err != nil {
		return ElicitAnswer{}, err
	}
	for {
		fmt.Fprint(out, "Answer? [Y]es, [n]o (decline), [c]ancel: ")
		line, err := readLine()
		if err != nil {
			return ElicitAnswer{}, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "", "y", "yes":
		case "n", "no":
			return ElicitAnswer{Action: "decline"}, nil
		case "c", "cancel":
			return ElicitAnswer{Action: "cancel"}, nil
		default:
			fmt.Fprintln(out, "Type y, n or c.")
			continue
		}
		break
	}
	for {
		content := map[string]any{}
		for _, f := range fields {
			v, set, err := askField(f, readLine, out)
			if err != nil {
				return ElicitAnswer{}, err
			}
			if set {
				content[f.Name] = v
			}
		}
		if err := checkContent(e.Schema, content); err != nil {
			fmt.Fprintf(out, "That answer does not fit what was asked: %v\nAgain:\n", err)
			continue
		}
		return ElicitAnswer{Action: "accept", Content: content}, nil
	}
}

// schemaFields reads the properties of a requested schema in their order.
func schemaFields(schema json.RawMessage) ([]field, error) {
	if len(schema) == 0 {
		return nil, nil
	}
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("mcp: the requested schema is not a JSON object: %w", err)
	}
	if len(s.Properties) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("mcp: the requested schema's properties: %w", err)
	}
	var fields []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("mcp: the requested schema's properties: %w", err)
		}
		name, _ := tok.(string)
		var f field
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("mcp: the requested schema's property %s: %w", name, err)
		}
		f.Name, f.required = name, slices.Contains(s.Required, name)
		fields = append(fields, f)
	}
	// Required fields first, in the order required names them; the rest
	// keep the schema's order.
	slices.SortStableFunc(fields, func(a, b field) int {
		ia, ib := slices.Index(s.Required, a.Name), slices.Index(s.Required, b.Name)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return 0
	})
	return fields, nil
}

// choices are the values a field takes (each item's, for an array),
// with their labels.
func (f field) choices() (values, labels []string) {
	enum, opts := f.Enum, f.OneOf
	if f.Type == "array" && f.Items != nil {
		enum, opts = f.Items.Enum, f.Items.AnyOf
	}
	for _, o := range opts {
		values, labels = append(values, o.Const), append(labels, cmp.Or(o.Title, o.Const))
	}
	if len(values) == 0 {
		values, labels = enum, enum
		if f.Type != "array" && len(f.EnumNames) == len(enum) {
			labels = f.EnumNames
		}
	}
	return values, labels
}

// askField asks for f until the person gives a value that fits, or skips
// an optional field with an empty line.
func askField(f field, readLine func() (string, error), out io.Writer) (v any, set bool, err error) {
	values, labels := f.choices()
	label := cmp.Or(f.Title, f.Name)
	hint := f.Type
	if len(values) > 0 {
		hint = "choose one"
		if f.Type == "array" {
			hint = "choose any, separated by commas"
		}
		for i, l := range labels {
			fmt.Fprintf(out, "  %d) %s\n", i+1, l)
		}
	}
	if f.required {
		hint += ", required"
	}
	if len(f.Default) > 0 {
		hint += ", default " + string(f.Default)
	}
	for {
		if f.Description != "" {
			fmt.Fprintf(out, "%s (%s) - %s: ", label, hint, f.Description)
		} else {
			fmt.Fprintf(out, "%s (%s): ", label, hint)
		}
		line, err := readLine()
		if err != nil {
			return nil, false, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if len(f.Default) > 0 {
				var d any
				if json.Unmarshal(f.Default, &d) == nil {
					return d, true, nil
				}
			}
			if !f.required {
				return nil, false, nil
			}
			fmt.Fprintln(out, "This one is required.")
			continue
		}
		v, problem := f.parse(line, values)
		if problem != "" {
			fmt.Fprintln(out, problem)
			continue
		}
		return v, true, nil
	}
}

// parse reads line as f's value; problem says what is wrong with it.
func (f field) parse(line string, values []string) (v any, problem string) {
	if f.Type == "array" {
		var picked []string
		for _, tok := range strings.Split(line, ",") {
			tok = strings.TrimSpace(tok)
			if tok == "" {
				continue
			}
			one, problem := field{Type: "string"}.parse(tok, values)
			if problem != "" {
				return nil, problem
			}
			picked = append(picked, one.(string))
		}
		if f.MinItems != nil && len(picked) < *f.MinItems {
			return nil, fmt.Sprintf("Choose at least %d.", *f.MinItems)
		}
		if f.MaxItems != nil && len(picked) > *f.MaxItems {
			return nil, fmt.Sprintf("Choose at most %d.", *f.MaxItems)
		}
		return picked, ""
	}
	if len(values) > 0 {
		if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(values) {
			return values[n-1], ""
		}
		if slices.Contains(values, line) {
			return line, ""
		}
		return nil, fmt.Sprintf("Choose a number from 1 to %d.", len(values))
	}
	switch f.Type {
	case "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return true, ""
		case "n", "no", "false":
			return false, ""
		}
		return nil, "Type yes or no."
	case "integer", "number":
		n, err := strconv.ParseFloat(line, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, "Type a number."
		}
		if f.Type == "integer" && n != math.Trunc(n) {
			return nil, "Type a whole number."
		}
		if f.Minimum != nil && n < *f.Minimum {
			return nil, fmt.Sprintf("The least allowed is %v.", *f.Minimum)
		}
		if f.Maximum != nil && n > *f.Maximum {
			return nil, fmt.Sprintf("The most allowed is %v.", *f.Maximum)
		}
		if f.Type == "integer" {
			return int64(n), ""
		}
		return n, ""
	default:
		n := len([]rune(line))
		if f.MinLength != nil && n < *f.MinLength {
			return nil, fmt.Sprintf("Type at least %d characters.", *f.MinLength)
		}
		if f.MaxLength != nil && n > *f.MaxLength {
			return nil, fmt.Sprintf("Type at most %d characters.", *f.MaxLength)
		}
		if f.Pattern != "" {
			if re, err := regexp.Compile(f.Pattern); err == nil && !re.MatchString(line) {
				return nil, fmt.Sprintf("That does not match the pattern %s.", f.Pattern)
			}
		}
		if f.Format == "email" && !strings.Contains(line, "@") {
			return nil, "Type an email address."
		}
		return line, ""
	}
}

// checkContent validates content against the requested schema.
func checkContent(schema json.RawMessage, content map[string]any) error {
	if len(schema) == 0 {
		return nil
	}
	s, err := jsonschema.Compile(schema)
	if err != nil {
		return fmt.Errorf("the requested %w", err)
	}
	b, err := json.Marshal(content)
	if err != nil {
		return err
	}
	return s.Validate(b)
}
