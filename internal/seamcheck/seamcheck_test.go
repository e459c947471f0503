package seamcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// allowed are the files that implement the seams themselves, measure
// the host (spans and metrics, which are off while a durable engine
// replays), or serve beside runs and never on their path.
var allowed = map[string]bool{
	"agent/seams.go":                  true,
	"agent/internal/clock/clock.go":   true,
	"internal/taskrun/taskrun.go":     true,
	"agent/metrics.go":                true,
	"internal/telemetry/telemetry.go": true,
	"agent/trace.go":                  true,
	// loom mcp serve's poller of served files, which notifies subscribed
	// clients; no run calls it.
	"spec/watch.go": true,
}

// timeCalls are the functions of package time that read the host's clock
// or start its timers. Any function of math/rand is forbidden too.
var timeCalls = map[string]bool{"Now": true, "Since": true, "Until": true, "After": true, "AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true, "Sleep": true}

// violations returns "file:line: what" for each use of a forbidden call or
// a go statement in the Go source src.
func violations(name, src string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	imports := map[string]string{}
	for _, im := range f.Imports {
		path := strings.Trim(im.Path.Value, `"`)
		local := filepath.Base(path)
		if path == "math/rand/v2" {
			local = "rand"
		}
		if im.Name != nil {
			local = im.Name.Name
		}
		imports[local] = path
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			out = append(out, fset.Position(n.Pos()).String()+": go statement (use the task runner seam, agentrt.WithTaskRunner)")
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok {
				path := imports[x.Name]
				switch {
				case path == "time" && timeCalls[sel.Sel.Name]:
					out = append(out, fset.Position(n.Pos()).String()+": time."+sel.Sel.Name+" (use agentrt.Now or agentrt.Since)")
				case path == "math/rand" || path == "math/rand/v2":
					out = append(out, fset.Position(n.Pos()).String()+": rand."+sel.Sel.Name+" (ids come from agentrt.WithIDs)")
				case path == "context" && (sel.Sel.Name == "WithTimeout" || sel.Sel.Name == "WithDeadline"):
					out = append(out, fset.Position(n.Pos()).String()+": context."+sel.Sel.Name+" (timeouts go through the limits)")
				}
			}
			if sel.Sel.Name == "Go" {
				if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "wg" || strings.HasSuffix(id.Name, "WaitGroup")) {
					out = append(out, fset.Position(n.Pos()).String()+": WaitGroup.Go (use the task runner seam)")
				}
			}
		}
		return true
	})
	return out, nil
}

// runPath are the packages whose code runs on a run's path: the agent
// loop and its engine, the compositions, spec's functions and graphs, the
// sandbox's contract, and the evaluateJs tool, whose code mode serves a
// snippet's tool calls as nested runs. The sandbox's runtime and worker
// pool are not on it: like a model call, a snippet's execution is one
// step that a durable engine records, not replays.
var runPath = []string{"agent", "agent/agentrt", "agent/internal/clock", "engine", "compose", "codeexec", "graph", "internal/flow", "internal/taskrun", "sandbox", "sandbox/jstool", "spec"}

// boundaries are packages with run bodies that are not checked, and why.
var boundaries = map[string]string{
	"mcp": "an MCP tool's body is a network call: one step a durable engine records (temporal.ActivityTool), with the client's own goroutines and timers",
}

// TestRunPathCoversEveryRunBody: every package of the module that writes
// a run's body (a function taking an *agent.Run) is checked, or named as
// a boundary with its reason, so that a new one cannot slip past the
// check.
func TestRunPathCoversEveryRunBody(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := map[string]bool{}
	for _, p := range runPath {
		checked[p] = true
	}
	var missing []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // a nested module (temporal, vector/*): its own boundary
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if checked[pkg] || boundaries[pkg] != "" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if takesRun(t, rel, string(src)) {
			missing = append(missing, rel)
			checked[pkg] = true // one report per package
		}
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, missing, "these files write run bodies: add their packages to runPath, or to boundaries with the reason")
}

// takesRun reports whether the Go source src declares a function with a
// parameter of type *agent.Run.
func takesRun(t *testing.T, name, src string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
	require.NoError(t, err)
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		ft, ok := n.(*ast.FuncType)
		if !ok || ft.Params == nil {
			return !found
		}
		for _, p := range ft.Params.List {
			if star, ok := p.Type.(*ast.StarExpr); ok {
				if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Run" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "agent" {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

func TestRunPathUsesOnlyTheSeams(t *testing.T) {
	root := filepath.Join("..", "..")
	var all []string
	for _, pkg := range runPath {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files)
		for _, file := range files {
			rel := filepath.ToSlash(strings.TrimPrefix(file, root+string(filepath.Separator)))
			if strings.HasSuffix(file, "_test.go") || allowed[rel] {
				continue
			}
			src, err := os.ReadFile(file)
			require.NoError(t, err)
			v, err := violations(rel, string(src))
			require.NoError(t, err)
			all = append(all, v...)
		}
	}
	require.Empty(t, all, "a run's path must reach time, randomness and goroutines only through agent's seams")
}

func TestViolationsFindsEachKind(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"time.Now", "package p\nimport \"time\"\nvar _ = time.Now()", "time.Now"},
		{"time.Since", "package p\nimport \"time\"\nfunc f(t time.Time) { _ = time.Since(t) }", "time.Since"},
		{"renamed time", "package p\nimport tm \"time\"\nvar _ = tm.Now()", "time.Now"},
		{"math/rand", "package p\nimport \"math/rand\"\nvar _ = rand.Int()", "rand.Int"},
		{"math/rand/v2", "package p\nimport \"math/rand/v2\"\nvar _ = rand.Uint64()", "rand.Uint64"},
		{"go statement", "package p\nfunc f() { go f() }", "go statement"},
		{"WaitGroup.Go", "package p\nimport \"sync\"\nfunc f() { var wg sync.WaitGroup; wg.Go(f) }", "WaitGroup.Go"},
		{"context.WithTimeout", "package p\nimport \"context\"\nfunc f(c context.Context) { context.WithTimeout(c, 1) }", "context.WithTimeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := violations("p.go", tc.src)
			require.NoError(t, err)
			require.Len(t, v, 1)
			require.Contains(t, v[0], tc.want)
		})
	}
	v, err := violations("p.go", "package p\nimport \"time\"\nvar _ time.Duration = time.Second")
	require.NoError(t, err)
	require.Empty(t, v, "types and constants are fine")
}
