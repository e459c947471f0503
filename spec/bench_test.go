package spec_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/spec"
)

// BenchmarkParseCheck measures loading the every-entry-type file short of
// building its agents: the strict walk, decoding and reference checks.
func BenchmarkParseCheck(b *testing.B) {
	path := filepath.Join(b.TempDir(), "loom.yaml")
	if err := os.WriteFile(path, []byte(validFiles[0].yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		d, err := spec.Parse(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := spec.Check(d, spec.Registry{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSchema measures generating the JSON Schema.
func BenchmarkSchema(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if len(spec.Schema()) == 0 {
			b.Fatal("empty schema")
		}
	}
}

// benchGraph loads a one-node graph whose branch is by or func, with an
// in-process sandbox.
func benchGraph(b *testing.B, branch string) agent.Agent {
	b.Helper()
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = exec.Close() })
	inc, err := agent.NewFunc("inc", "Adds one.", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (map[string]int, error) {
		return map[string]int{"n": in.N + 1}, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "loom.yaml")
	src := "version: loom/v1\nentry: flow\nagents:\n  flow:\n    type: graph\n    entry: one\n    nodes:\n      one: {agent: inc, output: res}\n    edges:\n      - {from: one, " + branch + ", targets: [end]}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := spec.Load(path, spec.Registry{Sandbox: exec, Funcs: map[string]agent.Agent{"inc": inc},
		Branches: map[string]spec.BranchFunc{"done": func(context.Context, map[string]json.RawMessage) ([]string, error) { return []string{"end"}, nil }}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Close() })
	return p.Entry
}

// BenchmarkGraphBranch measures one run of a one-node graph (a step, its
// checkpoints in memory, one branch), the branch a JavaScript expression
// in the in-process sandbox or a registered Go function.
func BenchmarkGraphBranch(b *testing.B) {
	for _, c := range []struct{ name, branch string }{
		{"expression", `branch: "state.res.n > 1 ? 'end' : 'end'"`},
		{"func", "func: done"},
	} {
		b.Run(c.name, func(b *testing.B) {
			g := benchGraph(b, c.branch)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := agent.Invoke(b.Context(), g, map[string]int{"n": 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// runOnly hides an executor's RunWithTools, so a function entry runs its
// code with Run.
type runOnly struct{ sandbox.Executor }

// BenchmarkFunctionRun measures one run of a function entry on each
// executor: code that names no tools (run as Run runs it; "run" hides
// RunWithTools to compare), code that awaits tools.progress once (outside
// a served call, so nothing is sent), and code that returns content
// parts.
func BenchmarkFunctionRun(b *testing.B) {
	inproc, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = inproc.Close() })
	iso, err := sandbox.NewIsolated(sandbox.IsolatedConfig{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = iso.Close() })
	const (
		value    = "  f: {type: function, code: '({n: input.n + 1})'}\n"
		progress = "  f: {type: function, code: 'await tools.progress({progress: 1}); ({n: input.n + 1})'}\n"
		content  = "  f: {type: function, returns: content, code: \"[{type: 'text', text: 'n=' + input.n}, {type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png'}]\"}\n"
	)
	for _, c := range []struct {
		name  string
		exec  sandbox.Executor
		entry string
	}{
		{"in_process/value", inproc, value},
		{"in_process/value_run", runOnly{inproc}, value},
		{"in_process/progress", inproc, progress},
		{"in_process/content", inproc, content},
		{"isolated/value", iso, value},
		{"isolated/value_run", runOnly{iso}, value},
		{"isolated/progress", iso, progress},
		{"isolated/content", iso, content},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "loom.yaml")
			if err := os.WriteFile(path, []byte("version: loom/v1\nagents:\n"+c.entry), 0o644); err != nil {
				b.Fatal(err)
			}
			p, err := spec.Load(path, spec.Registry{Sandbox: c.exec})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = p.Close() })
			f := p.Agent("f")
			b.ReportAllocs()
			for b.Loop() {
				if _, err := agent.Invoke(b.Context(), f, map[string]int{"n": 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
