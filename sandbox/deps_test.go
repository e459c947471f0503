package sandbox

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// loomImports walks the imports of the loom package in dir, and of the
// loom packages it imports in turn, reading every non-test Go file whatever
// its build constraints. It returns each loom package reached.
func loomImports(t *testing.T, root, module, dir string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	var walk func(path string)
	walk = func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		pkgDir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(path, module)))
		entries, err := os.ReadDir(pkgDir)
		require.NoError(t, err, "package %s", path)
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(pkgDir, name), nil, parser.ImportsOnly)
			require.NoError(t, err)
			for _, imp := range f.Imports {
				p, err := strconv.Unquote(imp.Path.Value)
				require.NoError(t, err)
				if p == module || strings.HasPrefix(p, module+"/") {
					walk(p)
				}
			}
		}
	}
	walk(module + "/" + dir)
	return seen
}

// TestSandboxImportsNoAgentLayer holds the package split: sandbox is the
// executor contract, and the agent layer builds on it (sandbox/jstool,
// codeexec), never the other way round.
func TestSandboxImportsNoAgentLayer(t *testing.T) {
	const module = "github.com/loomwork/loom"
	reached := loomImports(t, "..", module, "sandbox")
	require.True(t, reached[module+"/sandbox/internal/jsrt"], "the walk follows sandbox's imports: %v", reached)
	require.True(t, reached[module+"/sandbox/internal/worker"], "the walk follows sandbox's imports: %v", reached)
	for _, forbidden := range []string{"agent", "model", "compose", "codeexec", "mcp", "engine", "sandbox/jstool"} {
		t.Run(forbidden, func(t *testing.T) {
			require.False(t, reached[module+"/"+forbidden], "sandbox reaches %s through its imports: %v", forbidden, reached)
		})
	}
}

// TestWorkerBinaryLinksNoSchemaValidator: loom-jsworker starts without the
// JSON Schema validator, whose package init compiles meta-schemas (most
// of a worker's start-up init); host tool arguments are checked in the
// parent.
func TestWorkerBinaryLinksNoSchemaValidator(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./cmd/loom-jsworker").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/loomwork/loom/sandbox/internal/jsrt", "the listing is of the worker's dependencies")
	for _, d := range deps {
		require.NotContains(t, d, "jsonschema", "loom-jsworker links %s", d)
	}
}
