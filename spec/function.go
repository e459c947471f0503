package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/internal/jsonschema"
	"github.com/loomwork/loom/sandbox"
)

// function is a function entry: JavaScript run in loom's sandbox with the
// run's input bound to the constant input. Its output is the final
// expression's value; a value that is not an object is wrapped as
// {"result": value}, so functions compose in sequences. With returns:
// content the value is a list of content parts instead. Its console lines
// go to the registry's log, and its code may report progress with
// tools.progress.
type function struct {
	name, description string
	code              string
	in, out           json.RawMessage
	check             *jsonschema.Schema
	exec              sandbox.Executor
	content           bool
	box               *sandbox.Toolbox
	log               *slog.Logger
}

func newFunction(name string, c *Function, exec sandbox.Executor, log *slog.Logger) (*function, error) {
	f := &function{name: name, description: c.Description, code: c.Code, exec: exec, in: flow.AnyObject, out: flow.AnyObject, content: c.Returns == "content", log: log}
	if f.content {
		f.out = nil
	}
	box, err := sandbox.NewToolbox([]sandbox.HostTool{progressTool, f.logTool()}, sandbox.CallLimits{MaxCalls: maxToolCalls})
	if err != nil {
		return nil, err
	}
	f.box = box
	if c.InputSchema != nil {
		f.in = c.InputSchema.JSON
		s, err := jsonschema.Compile(f.in)
		if err != nil {
			return nil, fmt.Errorf("input_schema: %w", err)
		}
		f.check = s
	}
	if c.OutputSchema != nil {
		f.out = c.OutputSchema.JSON
		if _, err := jsonschema.Compile(f.out); err != nil {
			return nil, fmt.Errorf("output_schema: %w", err)
		}
	}
	return f, nil
}

func (f *function) Info() agent.Info {
	return agent.Info{Name: f.name, Description: f.description, Kind: "function", InputSchema: f.in, OutputSchema: f.out}
}

func (f *function) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, f, input, f.body)
}

func (f *function) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	in := r.Input
	if len(bytes.TrimSpace(in)) == 0 {
		in = json.RawMessage(`{}`)
	}
	if f.check != nil {
		if err := f.check.Validate(in); err != nil {
			return nil, fmt.Errorf("function %s: %w: %w", f.name, agent.ErrInvalidInput, err)
		}
	}
	// Valid JSON is a JavaScript expression; compacting checks it is one.
	var lit bytes.Buffer
	if err := json.Compact(&lit, in); err != nil {
		return nil, fmt.Errorf("function %s: %w: %w", f.name, agent.ErrInvalidInput, err)
	}
	code := "const input = " + lit.String() + ";\n" + f.code
	var res *sandbox.Result
	var err error
	// Tools cost a run a little more: code that never names them runs
	// without.
	if tr, ok := f.exec.(sandbox.ToolRunner); ok && strings.Contains(f.code, "tools") {
		res, err = tr.RunWithTools(ctx, code, f.box)
	} else {
		res, err = f.exec.Run(ctx, code)
	}
	if res != nil {
		f.logLines(ctx, res.Logs)
	}
	if err != nil {
		return nil, fmt.Errorf("function %s: %w", f.name, err)
	}
	if f.content {
		return f.contentOutput(ctx, r, res.Value)
	}
	if len(bytes.TrimSpace(res.Value)) > 0 && bytes.TrimSpace(res.Value)[0] == '{' {
		return res.Value, nil
	}
	value := res.Value
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	return json.Marshal(map[string]json.RawMessage{"result": value})
}
