package model

import (
	"encoding/json"
	"fmt"
)

// Request is one call to a model.
type Request struct {
	Messages   []Message
	Tools      []Tool
	ToolChoice ToolChoice
	Options    Options
	// ResponseSchema, when set, asks for a JSON answer matching the schema
	// (structured output).
	ResponseSchema *ResponseSchema
}

// ResponseSchema asks the model for JSON output matching Schema.
type ResponseSchema struct {
	Name        string          // a short identifier, as "answer"
	Description string          // optional
	Schema      json.RawMessage // a JSON schema for an object
}

// Validate checks the request before it is sent: at least one message,
// options in range, valid and unique tool names, and a tool choice that
// refers to the request's tools.
func (r *Request) Validate() error {
	if len(r.Messages) == 0 {
		return fmt.Errorf("%w: no messages", ErrInvalidRequest)
	}
	if err := r.Options.Validate(); err != nil {
		return err
	}
	seen := make(map[string]bool, len(r.Tools))
	for _, t := range r.Tools {
		if !ValidToolName(t.Name) {
			return fmt.Errorf("%w: tool name %q is not valid: use letters, digits, '_' or '-', starting with a letter or '_', at most 64 characters", ErrInvalidRequest, t.Name)
		}
		if seen[t.Name] {
			return fmt.Errorf("%w: tool %q appears twice", ErrInvalidRequest, t.Name)
		}
		seen[t.Name] = true
	}
	if r.ResponseSchema != nil && len(r.ResponseSchema.Schema) == 0 {
		return fmt.Errorf("%w: response schema %q is empty", ErrInvalidRequest, r.ResponseSchema.Name)
	}
	return r.ToolChoice.validate(r.Tools)
}
