package codeexec

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/sandbox/jstool"
)

// withFunctions adds the declarations of the functions offered to
// snippets to the coder's input, under SandboxFunctionsKey, as the
// toolsets list them now.
func (ce *CodeExecution) withFunctions(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	tools, err := jstool.ResolveHostTools(ctx, ce.cfg.SandboxTools, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ce.Info().Name, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(input, &fields); err != nil || fields == nil {
		return input, nil // not an object: the coder's own check reports it
	}
	decl, err := json.Marshal(jstool.Declarations(tools))
	if err != nil {
		return nil, err
	}
	fields[SandboxFunctionsKey] = decl
	return json.Marshal(fields)
}
