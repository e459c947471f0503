package doccheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// stdNames are the standard packages README blocks use without importing
// them, by the name they are called with.
var stdNames = map[string]string{
	"context": "context", "errors": "errors", "fmt": "fmt", "io": "io", "json": "encoding/json",
	"http": "net/http", "log": "log", "os": "os", "slog": "log/slog", "strings": "strings", "time": "time",
}

// readmes are the READMEs whose Go blocks are checked: the repository's
// and every example's.
func readmes(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "examples", "*", "README.md"))
	require.NoError(t, err)
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

var goBlock = regexp.MustCompile("(?ms)^```go\n(.*?)^```")

// loomPackages maps a package's name to its import path, preferring the
// public package when an internal or example one has the same name.
func loomPackages(dirs map[string]string) map[string]string {
	paths := make([]string, 0, len(dirs))
	for ip := range dirs {
		paths = append(paths, ip)
	}
	// Public first, then shorter paths: the name a user imports.
	sort.Slice(paths, func(i, j int) bool {
		pi, pj := strings.Contains(paths[i], "internal") || strings.Contains(paths[i], "examples"), strings.Contains(paths[j], "internal") || strings.Contains(paths[j], "examples")
		if pi != pj {
			return !pi
		}
		if len(paths[i]) != len(paths[j]) {
			return len(paths[i]) < len(paths[j])
		}
		return paths[i] < paths[j]
	})
	byName := map[string]string{}
	for _, ip := range paths {
		name := ip[strings.LastIndexByte(ip, '/')+1:]
		if _, ok := byName[name]; !ok {
			byName[name] = ip
		}
	}
	return byName
}

// program makes a README block a file of package main: the packages it
// names imported, and statements (a fragment) wrapped in a function.
func program(block string, pkgs map[string]string) (string, []string) {
	var imports []string
	for _, m := range regexp.MustCompile(`\b([a-z][a-z0-9]*)\.[A-Za-z_]`).FindAllStringSubmatch(block, -1) {
		if ip, ok := stdNames[m[1]]; ok {
			imports = append(imports, ip)
		} else if ip, ok := pkgs[m[1]]; ok {
			imports = append(imports, ip)
		}
	}
	slices.Sort(imports)
	imports = slices.Compact(imports)
	var b strings.Builder
	b.WriteString("package main\n\n")
	for _, ip := range imports {
		fmt.Fprintf(&b, "import %q\n", ip)
	}
	trimmed := strings.TrimSpace(block)
	if strings.HasPrefix(trimmed, "func ") || strings.HasPrefix(trimmed, "type ") {
		b.WriteString(block)
	} else {
		b.WriteString("func _() {\n" + block + "\n}\n")
	}
	return b.String(), imports
}

// TestREADMEGoBlocks type-checks every Go block of the READMEs against
// loom's packages as they are, so a README naming a field, function or
// package that no longer exists fails. A fragment's free variables (ctx,
// m, tools: the surrounding program's) are allowed; everything the block
// says about loom's API is checked.
func TestREADMEGoBlocks(t *testing.T) {
	root := moduleRoot(t)
	pkgs := loomPackages(packageDirs(t, root))
	type source struct{ name, src string }
	var sources []source
	need := map[string]bool{}
	for _, path := range readmes(t, root) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, path)
		for i, m := range goBlock.FindAllStringSubmatch(string(b), -1) {
			src, imports := program(m[1], pkgs)
			sources = append(sources, source{fmt.Sprintf("%s block %d", rel, i+1), src})
			for _, ip := range imports {
				need[ip] = true
			}
		}
	}
	require.NotEmpty(t, sources)
	for _, name := range []string{"agent", "codeexec", "engine"} {
		need[pkgs[name]] = true // the packages the check's own test uses
	}
	exports := exportData(t, root, need)
	for _, s := range sources {
		t.Run(s.name, func(t *testing.T) {
			require.Empty(t, checkBlock(t, s.src, exports), "the block no longer matches the code:\n%s", s.src)
		})
	}
	// The check itself catches what it is for.
	for _, stale := range []string{
		"ce, _ := codeexec.New(codeexec.CodeExecutionConfig{})\n_ = ce",
		"a, _ := agent.NewAI(agent.AIConfig{Nam: \"x\"})\n_ = a",
		"engine.New().Invokes(ctx, nil, \"x\")",
	} {
		src, imports := program(stale, pkgs)
		for _, ip := range imports {
			require.Contains(t, exports, ip)
		}
		require.NotEmpty(t, checkBlock(t, src, exports), "a stale block passes:\n%s", src)
	}
}

// checkBlock type-checks src and returns its problems.
func checkBlock(t *testing.T, src string, exports map[string]string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "block.go", src, parser.SkipObjectResolution)
	require.NoError(t, err, "the block does not parse:\n%s", src)
	var problems []string
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := exports[path]
			if !ok {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			return os.Open(file)
		}),
		Error: func(err error) {
			te, ok := err.(types.Error)
			if !ok {
				problems = append(problems, err.Error())
				return
			}
			if te.Soft || freeVariable(te.Msg) {
				return
			}
			problems = append(problems, te.Error())
		},
	}
	_, _ = conf.Check("main", fset, []*ast.File{f}, nil)
	return problems
}

// freeVariable reports whether msg is about a name the block uses but a
// surrounding program would declare: a lower-case undefined name.
func freeVariable(msg string) bool {
	name, ok := strings.CutPrefix(msg, "undefined: ")
	return ok && !ast.IsExported(name) && !strings.Contains(name, ".")
}

// exportData builds the packages (from the build cache when it can) and
// returns the export data file of each and of their dependencies.
func exportData(t *testing.T, root string, need map[string]bool) map[string]string {
	t.Helper()
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}
	for ip := range need {
		args = append(args, ip)
	}
	cmd := exec.CommandContext(t.Context(), "go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if ip, file, ok := strings.Cut(line, "="); ok && file != "" {
			exports[ip] = file
		}
	}
	return exports
}

// TestREADMEQuickstartIsTheExample: the README's first program is
// examples/quickstart's main, word for word, so it is built and run
// against a local OpenAI-format server by that example's test.
func TestREADMEQuickstartIsTheExample(t *testing.T) {
	root := moduleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	first := goBlock.FindStringSubmatch(string(readme))
	require.NotNil(t, first, "the README opens with a Go program")
	src, err := os.ReadFile(filepath.Join(root, "examples", "quickstart", "main.go"))
	require.NoError(t, err)
	start := strings.Index(string(src), "func main() {")
	require.GreaterOrEqual(t, start, 0)
	require.Equal(t, string(src[start:]), first[1], "the README's first block is examples/quickstart's main")
	require.Contains(t, string(readme), "That is `examples/quickstart/main.go`")
}

// TestREADMEListsEveryPackage: the README's package table names every
// public package of the module (bench's helpers aside), and no folder
// that is gone.
func TestREADMEListsEveryPackage(t *testing.T) {
	root := moduleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	text := string(readme)
	start, end := strings.Index(text, "## Packages"), strings.Index(text, "## Architecture")
	require.True(t, start >= 0 && end > start, "the README has a Packages section before its Architecture")
	table := text[start:end]
	named := map[string]bool{} // the names of the table's first column, and those in its text
	for _, row := range regexp.MustCompile(`(?m)^\| ([^|]*)\|([^\n]*)`).FindAllStringSubmatch(table, -1) {
		for _, m := range regexp.MustCompile("`([a-z0-9/-]+)`").FindAllStringSubmatch(row[1], -1) {
			named[m[1]] = true
		}
		for _, m := range regexp.MustCompile("`([a-z0-9-]+/[a-z0-9/-]+)`").FindAllStringSubmatch(row[2], -1) {
			if m[1] != "loom/v1" {
				named[m[1]] = true
			}
		}
	}
	for ip := range packageDirs(t, root) {
		rel := strings.TrimPrefix(strings.TrimPrefix(ip, modulePath), "/")
		if rel == "" || strings.Contains(ip, "/internal") || strings.HasPrefix(rel, "examples") || strings.HasPrefix(rel, "bench") || strings.Contains(rel, "testdata") {
			continue
		}
		require.True(t, named[rel], "README.md's package table does not name %s", rel)
	}
	for n := range named {
		if strings.Contains(n, "/") {
			_, err := os.Stat(filepath.Join(root, n))
			require.NoError(t, err, "README.md's package table names %s, which is gone", n)
		}
	}
}

// TestREADMEImportClaims: what the README's Architecture says of the
// packages' imports holds: sandbox and checkpoint import no public loom
// package, agent only model's, and nothing below the top imports graph,
// mcp, observe or the CLI.
func TestREADMEImportClaims(t *testing.T) {
	root := moduleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	require.Contains(t, strings.Join(strings.Fields(string(readme)), " "), "`sandbox` (the executors) and `checkpoint` (stores keep opaque JSON) import nothing of loom; `model` ← `agent` ← `sandbox/jstool`, `compose`, `engine`, `vector` ← `codeexec`, with `graph`, `mcp`, `observe` and `cmd/loom` on top.")
	deps := func(pkg string) []string {
		cmd := exec.CommandContext(t.Context(), "go", "list", "-deps", "./"+pkg)
		cmd.Dir = root
		out, err := cmd.Output()
		require.NoError(t, err, "go list -deps ./%s", pkg)
		var public []string
		for _, ip := range strings.Fields(string(out)) {
			rel, ok := strings.CutPrefix(ip, modulePath+"/")
			if ok && rel != pkg && !strings.Contains(rel, "internal") {
				public = append(public, rel)
			}
		}
		return public
	}
	require.Empty(t, deps("sandbox"))
	require.Empty(t, deps("checkpoint"))
	for _, d := range deps("agent") {
		require.True(t, strings.HasPrefix(d, "model"), "agent imports %s", d)
	}
	for _, d := range deps("codeexec") {
		for _, top := range []string{"graph", "mcp", "observe", "cmd", "spec", "engine"} {
			require.False(t, d == top || strings.HasPrefix(d, top+"/"), "codeexec imports %s", d)
		}
	}
}
