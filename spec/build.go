package spec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/vector"
)

// Project is a loaded file: every declared agent, built.
type Project struct {
	// Doc is the parsed file.
	Doc *Doc
	// Agents are the built agents by name.
	Agents map[string]agent.Agent
	// Entry is the agent named by entry:, or nil.
	Entry agent.Agent
	// Toolsets are the mcp entries by name. Each connects to its server
	// when a run first asks for its tools.
	Toolsets map[string]agent.Toolset
	owned    []sandbox.Executor
	closers  []io.Closer
}

// Agent returns the declared agent called name, or nil.
func (p *Project) Agent(name string) agent.Agent { return p.Agents[name] }

// Close ends the MCP sessions and stops the sandboxes the project
// started.
func (p *Project) Close() error {
	var errs []error
	for _, c := range p.closers {
		errs = append(errs, c.Close())
	}
	for _, e := range p.owned {
		errs = append(errs, e.Close())
	}
	p.owned, p.closers = nil, nil
	return errors.Join(errs...)
}

// Load validates and builds the file at path: [Validate], then [Build],
// with zero [Options]. Nothing runs and no model is called.
func Load(path string, reg Registry) (*Project, error) { return LoadWith(path, reg, Options{}) }

// Build builds every agent of a checked Doc with loom's constructors. A
// constructor's complaint (a template that does not parse, a schema that
// does not compile, options out of range) is an [*Error] at the entry.
func Build(d *Doc, reg Registry) (*Project, error) {
	if dup := dupNames(reg); dup != "" {
		return nil, fmt.Errorf("spec: registry: %q is both a tool and a func: give them distinct names", dup)
	}
	b := &builder{d: d, reg: reg, p: &Project{Doc: d, Agents: map[string]agent.Agent{}, Toolsets: map[string]agent.Toolset{}}, models: map[string]model.Model{}}
	for _, e := range d.Agents {
		if c, ok := e.Config.(*MCP); ok {
			ts := &mcpTools{name: e.Name, cfg: c, getenv: reg.getenv()}
			b.p.Toolsets[e.Name] = ts
			b.p.closers = append(b.p.closers, ts)
		}
	}
	for _, e := range d.Agents {
		if e.Type != "mcp" && !d.broken[e.Name] {
			_, _ = b.agent(e.Name) // failures are kept in b.errs
		}
	}
	// Each failure is reported once, at the entry whose constructor
	// refused it, in file order; the entries that use it are not built.
	var errs Errors
	for _, e := range d.Agents {
		if err := b.errs[e.Name]; err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		_ = b.p.Close()
		return nil, errs
	}
	if d.File.Entry != "" {
		b.p.Entry = b.p.Agents[d.File.Entry]
		if b.p.Entry == nil {
			b.p.Entry = reg.lookup(d.File.Entry)
		}
	}
	return b.p, nil
}

type builder struct {
	d      *Doc
	reg    Registry
	p      *Project
	models map[string]model.Model
	failed map[string]error
	// errs are the failures by the entry that failed.
	errs map[string]*Error
}

// errBuiltBefore is what an entry that uses a failed entry gets: the
// failure is reported at the entry that failed.
var errBuiltBefore = errors.New("it uses an agent that failed to build")

func (b *builder) errorAt(e *Entry, err error) *Error {
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	hint := "fix the " + e.Type + " entry's settings ('loom schema' lists its keys)"
	if errors.Is(err, model.ErrUnknownProvider) {
		var ids []string
		for _, p := range model.Providers() {
			ids = append(ids, p.ID)
		}
		hint = "name a model as provider:model, the provider one of " + strings.Join(ids, ", ")
		if len(ids) == 0 {
			hint = "name a model as provider:model, with a provider Go code registers"
		}
	}
	// One error, one line: a multi-line message (a schema's) is joined.
	lines := strings.Split(err.Error(), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return &Error{File: b.d.Path, Line: e.Line, Col: e.Col, Path: join("agents", e.Name), Msg: strings.Join(lines, " "), Hint: hint}
}

// agent builds (once) and returns the agent a reference names.
func (b *builder) agent(name string) (agent.Agent, error) {
	if a, ok := b.p.Agents[name]; ok {
		return a, nil
	}
	e := b.d.Entry(name)
	if e == nil {
		if a := b.reg.lookup(name); a != nil {
			return a, nil
		}
		return nil, fmt.Errorf("unknown agent or tool %q", name)
	}
	if b.failed == nil {
		b.failed, b.errs = map[string]error{}, map[string]*Error{}
	}
	if err, ok := b.failed[name]; ok {
		return nil, err
	}
	if b.d.broken[name] {
		return nil, fmt.Errorf("%w: %s", errBuiltBefore, name)
	}
	a, err := b.build(e)
	if err != nil {
		b.failed[name] = fmt.Errorf("%w: %s", errBuiltBefore, name)
		if !errors.Is(err, errBuiltBefore) {
			b.errs[name] = b.errorAt(e, err)
		}
		return nil, b.failed[name]
	}
	b.p.Agents[name] = a
	return a, nil
}

// tools builds the agents names refers to, and returns the mcp entries
// among them as toolsets.
func (b *builder) tools(names []string) ([]agent.Agent, []agent.Toolset, error) {
	var (
		agents   []agent.Agent
		toolsets []agent.Toolset
	)
	for _, n := range names {
		if ts, ok := b.p.Toolsets[n]; ok {
			toolsets = append(toolsets, ts)
			continue
		}
		a, err := b.agent(n)
		if err != nil {
			return nil, nil, err
		}
		agents = append(agents, a)
	}
	return agents, toolsets, nil
}

// toolsets returns what names refers to as toolsets: the mcp entries, and
// the agents in one toolset that always lists them.
func (b *builder) toolsets(names []string) ([]agent.Toolset, error) {
	tools, toolsets, err := b.tools(names)
	if err != nil || len(tools) == 0 {
		return toolsets, err
	}
	static := agent.ToolsetFunc(func(context.Context) ([]agent.Agent, error) { return tools, nil })
	return append([]agent.Toolset{static}, toolsets...), nil
}

func (b *builder) agents(names []string) ([]agent.Agent, error) {
	out := make([]agent.Agent, 0, len(names))
	for _, n := range names {
		a, err := b.agent(n)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// optional builds the agent name refers to, or returns nil for "".
func (b *builder) optional(name string) (agent.Agent, error) {
	if name == "" {
		return nil, nil
	}
	return b.agent(name)
}

func (b *builder) model(ref string) (model.Model, error) {
	if ref == "" {
		ref = b.d.File.Model
	}
	if ref == "" {
		return nil, nil
	}
	if m, ok := b.models[ref]; ok {
		return m, nil
	}
	if m, ok := b.d.opened[ref]; ok && b.reg.Models != nil {
		b.models[ref] = m
		return m, nil
	}
	open := b.reg.Models
	if open == nil {
		open = model.Open
	}
	m, err := open(ref)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", ref, err)
	}
	b.models[ref] = m
	return m, nil
}

func (s Sampling) options() model.Options {
	o := model.Options{Temperature: s.Temperature, TopP: s.TopP}
	if s.MaxTokens != 0 {
		o.MaxOutputTokens = model.Ptr(s.MaxTokens)
	}
	return o
}

func (b *builder) build(e *Entry) (agent.Agent, error) {
	switch c := e.Config.(type) {
	case *AI:
		return b.ai(e.Name, c)
	case *CodeExecution:
		return b.codeExecution(e.Name, c)
	case *Sequence:
		steps, err := b.agents(c.Steps)
		if err != nil {
			return nil, err
		}
		return compose.NewSequence(compose.SequenceConfig{Name: e.Name, Description: c.Description, Steps: steps})
	case *Parallel:
		branches, err := b.agents(c.Branches)
		if err != nil {
			return nil, err
		}
		return compose.NewParallel(compose.ParallelConfig{Name: e.Name, Description: c.Description, Branches: branches, MaxConcurrency: c.MaxConcurrency, CollectErrors: c.CollectErrors})
	case *Map:
		a, err := b.agent(c.Agent)
		if err != nil {
			return nil, err
		}
		return compose.NewMap(compose.MapConfig{Name: e.Name, Description: c.Description, Field: c.Field, Agent: a, ItemKey: c.ItemKey, MaxConcurrency: c.MaxConcurrency, CollectErrors: c.CollectErrors})
	case *Reflect:
		worker, err := b.agent(c.Worker)
		if err != nil {
			return nil, err
		}
		reviewer, err := b.agent(c.Reviewer)
		if err != nil {
			return nil, err
		}
		return compose.NewReflect(compose.ReflectConfig{Name: e.Name, Description: c.Description, Worker: worker, Reviewer: reviewer, MaxRounds: c.MaxRounds, ReturnLast: c.ReturnLast})
	case *Route:
		targets, err := b.agents(c.Agents)
		if err != nil {
			return nil, err
		}
		m, err := b.model(c.Model)
		if err != nil {
			return nil, err
		}
		return compose.NewRoute(compose.RouteConfig{Name: e.Name, Description: c.Description, Instructions: c.Instructions, Model: m, Options: c.Sampling.options(), Agents: targets})
	case *Coordinator:
		return b.coordinator(e.Name, c)
	case *Retriever:
		return vector.NewSearchTool(b.reg.Stores[c.Store], vector.SearchToolConfig{
			Name: e.Name, Description: c.Description, K: c.K, MaxK: c.MaxK, MinScore: float32(c.MinScore),
		})
	case *Graph:
		return b.graph(e.Name, c)
	case *MCP:
		return nil, fmt.Errorf("%q is an mcp entry, a set of tools, not an agent: name it in the tools of an ai or code_execution entry", e.Name)
	case *Function:
		exec, err := b.sandbox(c.Sandbox)
		if err != nil {
			return nil, err
		}
		return newFunction(e.Name, c, exec, b.reg.Log)
	}
	return nil, fmt.Errorf("internal: no constructor for %T", e.Config)
}

func (b *builder) ai(name string, c *AI) (agent.Agent, error) {
	tools, toolsets, err := b.tools(c.Tools)
	if err != nil {
		return nil, err
	}
	m, err := b.model(c.Model)
	if err != nil {
		return nil, err
	}
	cfg := agent.AIConfig{
		Name: name, Description: c.Description, Instructions: c.Instructions, Model: m, Tools: tools, Toolsets: toolsets,
		Options: c.Sampling.options(), InputKey: c.InputKey, OutputKey: c.OutputKey, MaxTurns: c.MaxTurns,
		ToolChoice: model.ToolChoice{Mode: model.ToolMode(c.ToolChoice)},
	}
	if c.ToolChoice == "auto" {
		cfg.ToolChoice = model.ToolChoice{}
	}
	if c.InputSchema != nil {
		cfg.InputSchema = c.InputSchema.JSON
	}
	if c.OutputSchema != nil {
		cfg.OutputSchema = c.OutputSchema.JSON
	}
	if err := b.guardrails(c.Guardrails, &cfg); err != nil {
		return nil, err
	}
	return agent.NewAI(cfg)
}

func (b *builder) codeExecution(name string, c *CodeExecution) (agent.Agent, error) {
	toolsets, err := b.toolsets(c.Tools)
	if err != nil {
		return nil, err
	}
	sandboxTools, err := b.toolsets(c.SandboxTools)
	if err != nil {
		return nil, err
	}
	reviewer, err := b.optional(c.Reviewer)
	if err != nil {
		return nil, err
	}
	handler, err := b.optional(c.ErrorHandler)
	if err != nil {
		return nil, err
	}
	m, err := b.model(c.Model)
	if err != nil {
		return nil, err
	}
	exec, err := b.sandbox(c.Sandbox)
	if err != nil {
		return nil, err
	}
	cfg := codeexec.Config{
		Name: name, Description: c.Description, Model: m, Options: c.Sampling.options(), Instructions: c.Instructions,
		Sandbox: exec, Reviewer: reviewer, ErrorHandler: handler, MaxRetries: c.MaxRetries, MaxTurns: c.MaxTurns,
		Toolsets: toolsets, SandboxTools: sandboxTools,
		SandboxCalls: sandbox.CallLimits{MaxCalls: c.SandboxCalls.MaxCalls, MaxInFlight: c.SandboxCalls.MaxInFlight},
	}
	if c.Approval == "ask" {
		cfg.Approver = b.reg.Approver
		if cfg.Approver == nil {
			cfg.Approver = codeexec.ApproverFunc(askLater)
		}
	}
	return codeexec.New(cfg)
}

// askLater leaves every decision to a person: the snippet becomes a
// pending approval question.
func askLater(context.Context, codeexec.ApprovalRequest) (codeexec.Approval, error) {
	return codeexec.Approval{}, codeexec.ErrPending
}

func (b *builder) coordinator(name string, c *Coordinator) (agent.Agent, error) {
	roles := []string{c.Planner, c.Coder, c.Reviewer, c.Executor, c.ErrorHandler, c.Arbiter, c.Synthesizer}
	built := make([]agent.Agent, len(roles))
	for i, r := range roles {
		a, err := b.optional(r)
		if err != nil {
			return nil, err
		}
		built[i] = a
	}
	return compose.NewCoordinator(compose.CoordinatorConfig{
		Name: name, Description: c.Description,
		Planner: built[0], Coder: built[1], Reviewer: built[2], Executor: built[3], ErrorHandler: built[4], Arbiter: built[5], Synthesizer: built[6],
		AcceptOnDisagreement: c.AcceptOnDisagreement, MaxRounds: c.MaxRounds, MaxSubtasks: c.MaxSubtasks,
	})
}

// sandbox returns the registry's executor, or starts one from s.
func (b *builder) sandbox(s Sandbox) (sandbox.Executor, error) {
	_, dry := b.reg.Sandbox.(noSandbox)
	if b.reg.Sandbox != nil && !dry {
		return b.reg.Sandbox, nil
	}
	var lim sandbox.Limits
	if s.Timeout != "" {
		d, err := sandboxTimeout(s.Timeout)
		if err != nil {
			return nil, err // checked by Parse: a Doc built without it
		}
		lim.Timeout = d
	}
	if s.MemoryMB < 0 {
		return nil, fmt.Errorf("sandbox memory_mb %d: want a positive number of MiB", s.MemoryMB) // checked by Parse
	}
	lim.Memory = int64(s.MemoryMB) << 20
	if dry {
		// Validate: every check above is made, nothing is started.
		return b.reg.Sandbox, nil
	}
	var (
		exec sandbox.Executor
		err  error
	)
	if s.Kind == InProcess {
		if err := inProcessAllowed(s, b.reg.TrustedCode); err != nil {
			return nil, err
		}
		exec, err = sandbox.NewInProcess(sandbox.InProcessConfig{Limits: lim})
	} else {
		cfg := b.reg.Isolated
		cfg.Limits = lim
		exec, err = sandbox.NewIsolated(cfg)
	}
	if err != nil {
		return nil, err
	}
	b.p.owned = append(b.p.owned, exec)
	return exec, nil
}

func dupNames(reg Registry) string {
	for _, n := range slices.Sorted(maps.Keys(reg.Tools)) {
		if _, ok := reg.Funcs[n]; ok {
			return n
		}
	}
	return ""
}
