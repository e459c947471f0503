package config_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/evals"
	"github.com/loomwork/loom/graph"
	"github.com/loomwork/loom/internal/config"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/mcp"
	mcpserver "github.com/loomwork/loom/mcp/server"
	"github.com/loomwork/loom/model/gemini"
	"github.com/loomwork/loom/model/openai"
	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/viewer"
	"github.com/loomwork/loom/playground"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/recall"
	vsqlite "github.com/loomwork/loom/vector/sqlite"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// ruleCase builds one config type: value is a valid config (its numbers
// zero), build hands a config of that type to its constructor. zeroNeeds,
// when set, says what else than numbers the zero config lacks to build
// here (a server): its build may then fail, but not over a number.
type ruleCase struct {
	value     any
	build     func(t *testing.T, cfg any) error
	zeroNeeds string
}

// graphState is the state of the graph the graph.Config case compiles.
type graphState struct {
	N int `json:"n"`
}

// ctor adapts a constructor taking only a config to ruleCase.build.
func ctor[C, R any](f func(C) (R, error)) func(*testing.T, any) error {
	return func(_ *testing.T, c any) error {
		_, err := f(c.(C))
		return err
	}
}

// cases holds every exported config struct of the core module's public
// packages, by "dir.Type". TestEveryConfigHasACase keeps it complete.
func cases(t *testing.T) map[string]ruleCase {
	constant := func(name string) agent.Agent { return testkit.Constant(t, name, map[string]any{"ok": true}) }
	memory := func() vector.Store {
		m, err := vector.NewMemory(vector.MemoryConfig{Dimensions: 2})
		require.NoError(t, err)
		return m
	}
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = exec.Close() })
	closeIt := func(c any) {
		if cl, ok := c.(interface{ Close() error }); ok && !reflect.ValueOf(c).IsNil() {
			_ = cl.Close()
		}
	}
	return map[string]ruleCase{
		"agent.AIConfig":       {agent.AIConfig{Name: "a"}, ctor(agent.NewAI), ""},
		"agent.DenyListConfig": {agent.DenyListConfig{}, ctor(agent.DenyList), ""},
		"engine.Config": {engine.Config{}, func(t *testing.T, c any) error {
			_, err := engine.New(c.(engine.Config)).Invoke(t.Context(), constant("a"), "x")
			return err
		}, ""},
		"engine.WindowConfig": {engine.WindowConfig{}, ctor(engine.NewWindow), ""},
		"graph.Config": {graph.Config{}, func(t *testing.T, c any) error {
			_, err := graph.New[graphState](c.(graph.Config)).
				Node("a", func(_ context.Context, s graphState) (graphState, error) { return s, nil }).
				Edge(graph.START, "a").Edge("a", graph.END).Compile()
			return err
		}, ""},
		"compose.ParallelConfig":    {compose.ParallelConfig{Name: "p", Branches: []agent.Agent{constant("a")}}, ctor(compose.NewParallel), ""},
		"compose.RouteConfig":       {compose.RouteConfig{Name: "r", Agents: []agent.Agent{constant("a")}}, ctor(compose.NewRoute), ""},
		"compose.MapConfig":         {compose.MapConfig{Name: "m", Field: "items", Agent: constant("a")}, ctor(compose.NewMap), ""},
		"compose.CoordinatorConfig": {compose.CoordinatorConfig{Name: "c", Coder: constant("coder"), Reviewer: constant("reviewer"), Executor: constant("executor")}, ctor(compose.NewCoordinator), ""},
		"compose.ReflectConfig":     {compose.ReflectConfig{Name: "r", Worker: constant("w"), Reviewer: constant("r")}, ctor(compose.NewReflect), ""},
		"compose.SequenceConfig":    {compose.SequenceConfig{Name: "s", Steps: []agent.Agent{constant("a")}}, ctor(compose.NewSequence), ""},
		"codeexec.Config": {codeexec.Config{Sandbox: exec}, func(t *testing.T, c any) error {
			ce, err := codeexec.New(c.(codeexec.Config))
			closeIt(ce)
			return err
		}, ""},
		"observe.BatchConfig": {observe.BatchConfig{}, func(t *testing.T, c any) error {
			p, err := observe.NewBatchProcessor(tracetest.NewInMemoryExporter(), c.(observe.BatchConfig))
			if err == nil {
				_ = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p)).Shutdown(context.Background())
			}
			return err
		}, ""},
		"observe.Config": {observe.Config{Exporter: observe.ExporterNone}, func(t *testing.T, c any) error {
			_, shutdown, err := observe.Setup(t.Context(), c.(observe.Config))
			if err == nil {
				_ = shutdown(context.Background())
			}
			return err
		}, ""},
		"observe/viewer.HandlerConfig": {viewer.HandlerConfig{}, nil, ""},
		"observe/viewer.Config": {viewer.Config{}, func(t *testing.T, c any) error {
			cfg := c.(viewer.Config)
			cfg.DBPath = filepath.Join(t.TempDir(), "traces.db")
			ctx, cancel := context.WithCancel(t.Context())
			cancel() // validate, then stop at once
			return viewer.Serve(ctx, cfg)
		}, "a port free on this machine"},
		"playground.Config": {playground.Config{}, ctor(playground.New), "an engine with checkpoints and a loom file"},
		"mcp.Config": {mcp.Config{Command: []string{filepath.Join(t.TempDir(), "no-such-server")}}, func(t *testing.T, c any) error {
			ts, err := mcp.Connect(t.Context(), c.(mcp.Config))
			closeIt(ts)
			return err
		}, "an MCP server"},
		"mcp/server.Config": {mcpserver.Config{Agents: []agent.Agent{constant("a")}, Engine: engine.New(engine.Config{})}, ctor(mcpserver.New), ""},
		"evals.Config": {evals.Config{Executor: exec, Solver: constant("solver")}, func(t *testing.T, c any) error {
			_, err := evals.Run(t.Context(), nil, c.(evals.Config))
			return err
		}, "problems to solve"},
		"vector.MemoryConfig": {vector.MemoryConfig{Dimensions: 2}, ctor(vector.NewMemory), ""},
		"vector.IngestConfig": {vector.IngestConfig{}, func(t *testing.T, c any) error {
			_, err := vector.NewIngester(memory(), c.(vector.IngestConfig))
			return err
		}, ""},
		"vector.SearchToolConfig": {vector.SearchToolConfig{}, func(t *testing.T, c any) error {
			_, err := vector.NewSearchTool(memory(), c.(vector.SearchToolConfig))
			return err
		}, ""},
		"vector/recall.Config": {recall.Config{Store: memory(), SessionID: "s"}, ctor(recall.New), ""},
		"vector/sqlite.Config": {vsqlite.Config{MemoryConfig: vector.MemoryConfig{Dimensions: 2}}, func(t *testing.T, c any) error {
			cfg := c.(vsqlite.Config)
			cfg.Path = filepath.Join(t.TempDir(), "v.db")
			s, err := vsqlite.Open(t.Context(), cfg)
			closeIt(s)
			return err
		}, ""},
		"model/openai.EmbedConfig": {openai.EmbedConfig{}, func(t *testing.T, c any) error {
			_, err := openai.NewEmbedder("text-embedding-3-small", c.(openai.EmbedConfig), openai.WithAPIKey("k"), openai.WithBaseURL("http://127.0.0.1:1"))
			return err
		}, ""},
		"model/gemini.EmbedConfig": {gemini.EmbedConfig{}, func(t *testing.T, c any) error {
			_, err := gemini.NewEmbedder("text-embedding-004", c.(gemini.EmbedConfig), gemini.WithAPIKey("k"), gemini.WithBaseURL("http://127.0.0.1:1"))
			return err
		}, ""},
	}
}

// exportedConfigs lists the exported struct types named Config or
// ...Config in the core module's public packages (not internal, examples,
// cmd, or nested modules), as "dir.Type".
func exportedConfigs(t *testing.T) []string {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	var out []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "internal" || name == "testdata" || name == "node_modules" || name == "examples" || name == "cmd") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // a nested module, with its own tests
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				if _, isStruct := ts.Type.(*ast.StructType); isStruct && ts.Name.IsExported() && strings.HasSuffix(ts.Name.Name, "Config") {
					out = append(out, filepath.ToSlash(filepath.Dir(rel))+"."+ts.Name.Name)
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	slices.Sort(out)
	return out
}

// A new config type must get a case here, so the rule is checked for it.
func TestEveryConfigHasACase(t *testing.T) {
	all := cases(t)
	names := make([]string, 0, len(all))
	for k := range all {
		names = append(names, k)
	}
	slices.Sort(names)
	require.Equal(t, exportedConfigs(t), names, "every exported config struct needs a case in cases(), and every case a config")
}

// numbers lists the signed numeric fields of v's type, by index path and
// dotted name, descending into nested structs as config.Check does.
func numbers(typ reflect.Type, index []int, name string) (paths [][]int, names []string, tags []string) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		idx := append(slices.Clone(index), i)
		n := strings.TrimPrefix(name+"."+f.Name, ".")
		switch f.Type.Kind() {
		case reflect.Struct:
			p, ns, ts := numbers(f.Type, idx, n)
			paths, names, tags = append(paths, p...), append(names, ns...), append(tags, ts...)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Float32, reflect.Float64:
			paths, names, tags = append(paths, idx), append(names, n), append(tags, f.Tag.Get("config"))
		}
	}
	return paths, names, tags
}

// TestZeroAndNegativeRule checks every config: all numbers zero builds
// (zero is the default), and each number set to -1 is refused with an
// error naming the field, unless the field is tagged config:"negative"
// (its doc says what a negative value means), when it builds.
func TestZeroAndNegativeRule(t *testing.T) {
	for name, c := range cases(t) {
		t.Run(name, func(t *testing.T) {
			typ := reflect.TypeOf(c.value)
			paths, fields, tags := numbers(typ, nil, "")
			if c.build == nil {
				require.Empty(t, fields, "a config with numeric fields needs a build func")
				return
			}
			if err := c.build(t, c.value); c.zeroNeeds == "" {
				require.NoError(t, err, "the zero numbers are the defaults")
			} else if err != nil {
				for _, f := range fields {
					require.NotContains(t, err.Error(), f[strings.LastIndexByte(f, '.')+1:]+" is", "the zero config fails for want of %s, not over a number", c.zeroNeeds)
				}
			}
			for i, p := range paths {
				v := reflect.New(typ).Elem()
				v.Set(reflect.ValueOf(c.value))
				f := v.FieldByIndex(p)
				if f.CanInt() {
					f.SetInt(-1)
				} else {
					f.SetFloat(-1)
				}
				err := c.build(t, v.Interface())
				last := fields[i][strings.LastIndexByte(fields[i], '.')+1:]
				if tags[i] == config.TagNegative {
					if err != nil {
						require.NotContains(t, err.Error(), last, "%s is tagged negative: -1 has a meaning", fields[i])
					}
					continue
				}
				require.Error(t, err, "%s = -1 must be refused", fields[i])
				require.Contains(t, err.Error(), last, "the error names the field %s", fields[i])
			}
		})
	}
}

// Check reports the first negative field by path, lets tagged fields
// through and ignores what it cannot descend into.
func TestCheck(t *testing.T) {
	type inner struct {
		Timeout time.Duration
	}
	type cfg struct {
		N        int
		Budget   int `config:"negative"`
		Score    float32
		In       inner
		P        *int
		hidden   int
		Unsigned uint
	}
	neg := -1
	cases := []struct {
		name string
		cfg  any
		want string
	}{
		{"zero", cfg{}, ""},
		{"nil pointer", (*cfg)(nil), ""},
		{"not a struct", 3, ""},
		{"negative int", cfg{N: -2}, "x.cfg.N is -2"},
		{"tagged", cfg{Budget: -1}, ""},
		{"negative float", &cfg{Score: -0.5}, "x.cfg.Score is -0.5"},
		{"nested duration", cfg{In: inner{Timeout: -time.Second}}, "x.cfg.In.Timeout is -1s"},
		{"pointer field not followed", cfg{P: &neg}, ""},
		{"unexported ignored", cfg{hidden: -1}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := config.Check("x.cfg", c.cfg)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			var fe *config.FieldError
			require.ErrorAs(t, err, &fe)
			require.Contains(t, err.Error(), c.want)
			require.Contains(t, err.Error(), "use 0 for the default")
		})
	}
}
