package jsrt

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// argSchema is a host tool's compiled input schema.
type argSchema struct {
	v *validator.Schema
}

func compileArgSchema(raw []byte) (*argSchema, error) {
	doc, err := validator.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	c := validator.NewCompiler()
	const loc = "mem:///host-tool.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	v, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("does not compile: %w", err)
	}
	return &argSchema{v: v}, nil
}

var schemaPrinter = message.NewPrinter(language.English)

// check returns "" when args meet the schema, otherwise what is wrong,
// one "at path: rule" per failing rule, at most eight.
func (s *argSchema) check(args []byte) string {
	inst, err := validator.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "the argument is not JSON data"
	}
	err = s.v.Validate(inst)
	if err == nil {
		return ""
	}
	var ve *validator.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var out []string
	var walk func(e *validator.ValidationError)
	walk = func(e *validator.ValidationError) {
		if len(out) >= 8 {
			return
		}
		if len(e.Causes) == 0 {
			where := "/" + strings.Join(e.InstanceLocation, "/")
			out = append(out, "at "+where+": "+e.ErrorKind.LocalizedString(schemaPrinter))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(out, "; ")
}
