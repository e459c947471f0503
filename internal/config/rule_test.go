package config_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	ckpostgres "github.com/loomwork/loom/checkpoint/postgres"
	cksqlite "github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/evals"
	"github.com/loomwork/loom/graph"
	"github.com/loomwork/loom/internal/config"
	"github.com/loomwork/loom/internal/config/configtest"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/mcp"
	mcpserver "github.com/loomwork/loom/mcp/server"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/gemini"
	"github.com/loomwork/loom/model/openai"
	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
	"github.com/loomwork/loom/observe/viewer"
	"github.com/loomwork/loom/playground"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/recall"
	vsqlite "github.com/loomwork/loom/vector/sqlite"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// ruleCase is one config's case in the rule's checks: a
// [configtest.Case], written without keys in the table below.
type ruleCase struct {
	value     any
	build     func(t *testing.T, cfg any) error
	zeroNeeds string
}

// checked is the table of cases for the configtest checks.
func checked(t *testing.T) map[string]configtest.Case {
	out := map[string]configtest.Case{}
	for k, c := range cases(t) {
		out[k] = configtest.Case{Value: c.value, Build: c.build, ZeroNeeds: c.zeroNeeds}
	}
	return out
}

// graphState is the state of the graph the graph.Config case compiles.
type graphState struct {
	N int `json:"n"`
}

// ctor adapts a constructor taking only a config to ruleCase's build.
func ctor[C, R any](f func(C) (R, error)) func(*testing.T, any) error { return configtest.Ctor(f) }

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
		"sandbox.InProcessConfig": {sandbox.InProcessConfig{}, func(t *testing.T, c any) error {
			e, err := sandbox.NewInProcess(c.(sandbox.InProcessConfig))
			closeIt(e)
			return err
		}, ""},
		// A worker that is not one (/bin/true), started in the background:
		// the config is checked, nothing runs, and this test binary is not
		// re-executed as a worker.
		"sandbox.IsolatedConfig": {sandbox.IsolatedConfig{WorkerCommand: []string{"/bin/true"}, BackgroundStart: true}, func(t *testing.T, c any) error {
			e, err := sandbox.NewIsolated(c.(sandbox.IsolatedConfig))
			closeIt(e)
			return err
		}, ""},
		"sandbox/jstool.Config": {jstool.Config{}, func(t *testing.T, c any) error {
			_, err := jstool.New(exec, c.(jstool.Config))
			return err
		}, ""},
		"checkpoint.MemorySessionsConfig": {checkpoint.MemorySessionsConfig{}, nil, ""},
		"checkpoint/sqlite.Config": {cksqlite.Config{}, func(t *testing.T, c any) error {
			cfg := c.(cksqlite.Config)
			cfg.Path = filepath.Join(t.TempDir(), "checkpoints.db")
			s, err := cksqlite.Open(t.Context(), cfg)
			closeIt(s)
			return err
		}, ""},
		"checkpoint/postgres.Config": {ckpostgres.Config{}, nil, ""},
		"observe/store.Config": {store.Config{}, func(t *testing.T, c any) error {
			cfg := c.(store.Config)
			cfg.Path = filepath.Join(t.TempDir(), "traces.db")
			s, err := store.Open(t.Context(), cfg)
			closeIt(s)
			return err
		}, ""},
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
			_, err := openai.NewEmbedder("text-embedding-3-small", c.(openai.EmbedConfig), model.WithAPIKey("k"), model.WithBaseURL("http://127.0.0.1:1"))
			return err
		}, ""},
		"model/gemini.EmbedConfig": {gemini.EmbedConfig{}, func(t *testing.T, c any) error {
			_, err := gemini.NewEmbedder("text-embedding-004", c.(gemini.EmbedConfig), model.WithAPIKey("k"), model.WithBaseURL("http://127.0.0.1:1"))
			return err
		}, ""},
	}
}

// repoRoot is the repository's root, the core module's.
func repoRoot(t *testing.T) string {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	return root
}

// A new config type must get a case here, so the rule is checked for it.
func TestEveryConfigHasACase(t *testing.T) {
	root := repoRoot(t)
	configtest.EveryConfigHasACase(t, root, root, checked(t))
}

// TestZeroAndNegativeRule checks every config of the core module: all
// numbers zero builds, each at -1 is refused with an error naming it,
// unless tagged config:"negative".
func TestZeroAndNegativeRule(t *testing.T) {
	configtest.Rule(t, checked(t))
}

// A nested module (temporal, vector/*) with config structs checks the
// rule over them itself, with the same helpers (configtest.Module).
func TestNestedModulesCheckTheRule(t *testing.T) {
	root := repoRoot(t)
	mods := configtest.NestedModules(t, root)
	require.Contains(t, mods, "temporal", "the walk finds the nested modules")
	for _, mod := range mods {
		if len(configtest.ExportedConfigs(t, root, filepath.Join(root, mod))) == 0 {
			continue
		}
		t.Run(mod, func(t *testing.T) {
			tests, err := filepath.Glob(filepath.Join(root, mod, "*_test.go"))
			require.NoError(t, err)
			var calls []string
			for _, f := range tests {
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				if strings.Contains(string(b), `configtest.Module(t, "`+mod+`", `) {
					calls = append(calls, f)
				}
			}
			require.Len(t, calls, 1, "module %s has config structs: one test of its own must check them with configtest.Module(t, %q, cases)", mod, mod)
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
