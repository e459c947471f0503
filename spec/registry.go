package spec

import (
	"log/slog"
	"maps"
	"slices"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/vector"
)

// Registry is what Go code lends a file: the models, tools and Go
// functions it names, and the sandbox its code runs on. The zero Registry
// opens models with model.Open and starts a sandbox per entry.
type Registry struct {
	// Models opens a model reference ("openai:gpt-4o-mini"); nil uses
	// model.Open, which reads keys from the environment.
	Models func(ref string) (model.Model, error)
	// Tools are agents a file names in tools lists and roles.
	Tools map[string]agent.Agent
	// Funcs are Go functions (agent.Func values) a file names the same
	// way; a name in both Tools and Funcs is an error.
	Funcs map[string]agent.Agent
	// Sandbox, when set, runs the code of every code_execution and
	// function entry, and the entries' sandbox settings are ignored. When
	// nil, each entry starts its own executor, which [Project.Close]
	// stops; an isolated one needs sandbox.ServeWorkerIfChild at the start
	// of main.
	Sandbox sandbox.Executor
	// TrustedCode is the program's consent that entries whose sandbox is
	// kind: in_process (each also marked trusted: true) run their code in
	// this process, where any snippet can kill it. Without it [Build]
	// refuses such entries: a file cannot grant itself the host's trust.
	// It does not apply when Sandbox is set.
	TrustedCode bool
	// Isolated is the config of every isolated executor an entry starts,
	// whose Limits are replaced by the entry's: the loom CLI starts the
	// first worker in the background (BackgroundStart) and uses a
	// loom-jsworker binary beside it (WorkerCommand). It does not apply
	// when Sandbox is set.
	Isolated sandbox.IsolatedConfig
	// Stores are the vector stores retriever entries name; each needs an
	// embedder, since the model searches with text.
	Stores map[string]vector.Store
	// Approver decides on the code of entries with approval: ask. When
	// nil, each snippet becomes a pending "approval" question: the run
	// stops with agent.ErrInterrupted and is resumed with a
	// codeexec.Approval as the answer.
	Approver codeexec.Approver
	// Branches are the Go functions graph edges name in func.
	Branches map[string]BranchFunc
	// Checkpoints is the store the project's runs are saved in, for the
	// tools that load a project and run it (the CLI and the playground
	// give it to their engine with engine.Config.Checkpoints). The loader
	// itself does not use it: graph entries are saved by the engine that
	// runs them, like any agent.
	Checkpoints checkpoint.Store
	// Log receives the console lines of function entries' code, each at
	// the level of its console method (console.log at info, console.debug
	// at debug), with the entry's name, when the code ends; nil drops
	// them. loom mcp serve gives a log that reaches the MCP client
	// (mcpserver.LogHandler).
	Log *slog.Logger
	// Getenv reads the environment variables mcp entries name in their
	// headers, when they connect; nil uses os.Getenv.
	Getenv func(string) string
}

// lookup returns the registered tool or function called name, or nil.
func (r Registry) lookup(name string) agent.Agent {
	if a, ok := r.Tools[name]; ok {
		return a
	}
	return r.Funcs[name]
}

func (r Registry) names() []string {
	return slices.Concat(slices.Collect(maps.Keys(r.Tools)), slices.Collect(maps.Keys(r.Funcs)))
}
