package server

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/jsonschema"
	"github.com/loomwork/loom/mcp"
	"github.com/loomwork/loom/model"
)

// DefaultSessionTimeout is how long an HTTP session may stay idle before
// the server ends it and frees its memory, when
// Config.SessionTimeout is zero.
const DefaultSessionTimeout = 10 * time.Minute

// Config says which agents a [Server] exposes and how they run.
type Config struct {
	// Name and Version identify the server to clients (defaults "loom", "1").
	Name, Version string
	// Instructions tell the client's model how to use the server.
	Instructions string
	// Agents are exposed as tools named for them; their input and output
	// schemas are the tools' schemas. A server may offer only resources
	// or prompts and no agents.
	Agents []agent.Agent
	// Engine runs every call, so its limits, hooks, tracing and usage
	// apply. Nil means an engine with in-memory checkpoints written only
	// when a run waits for an answer (engine.CheckpointAtInterrupts: the
	// store dies with the process, so a checkpoint of a run that does not
	// wait is never read), which the server deletes once the call ends (a
	// run waiting for an answer is kept for SessionTimeout). Questions a
	// run asks (an approval) can only be answered through a client's
	// elicitation when the engine has a checkpoint store.
	Engine *engine.Engine
	// SessionTimeout ends an HTTP session idle this long; zero means
	// [DefaultSessionTimeout].
	SessionTimeout time.Duration
	// AllowedOrigins are the browser origins, as "https://app.example",
	// that may call the HTTP handler besides the server's own and
	// loopback ones; any other Origin gets 403.
	AllowedOrigins []string
}

// Server exposes loom agents as MCP tools, and resources and prompts
// registered with its Add methods. Serve it over stdio with
// [Server.ServeStdio] or over streamable HTTP with [Server.Handler].
type Server struct {
	srv     *sdk.Server
	eng     *engine.Engine
	key     [32]byte // signs the request states of runs waiting for answers
	idle    time.Duration
	origins map[string]bool

	// mem is the checkpoint store of the engine the server made itself:
	// finished runs are deleted from it, and runs left waiting longer
	// than the idle timeout pruned, so it does not grow with every call.
	mem *checkpoint.Memory

	mu        sync.Mutex
	lastPrune time.Time
	resources map[string]bool     // URIs of fixed resources, for subscriptions
	templates map[string]Complete // URI template -> its completion
	prompts   map[string]Complete // prompt name -> its completion
}

// New returns a server for cfg's agents.
func New(cfg Config) (*Server, error) {
	if cfg.Name == "" {
		cfg.Name = "loom"
	}
	if cfg.Version == "" {
		cfg.Version = "1"
	}
	switch {
	case cfg.SessionTimeout < 0:
		return nil, fmt.Errorf("%w: SessionTimeout is %v: use zero for the default of %v, or a positive duration", mcp.ErrInvalidConfig, cfg.SessionTimeout, DefaultSessionTimeout)
	case cfg.SessionTimeout == 0:
		cfg.SessionTimeout = DefaultSessionTimeout
	}
	s := &Server{eng: cfg.Engine, idle: cfg.SessionTimeout, origins: map[string]bool{}, resources: map[string]bool{}, templates: map[string]Complete{}, prompts: map[string]Complete{}}
	for _, o := range cfg.AllowedOrigins {
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("%w: AllowedOrigins has %q: give an origin as scheme://host[:port]", mcp.ErrInvalidConfig, o)
		}
		s.origins[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	if _, err := rand.Read(s.key[:]); err != nil {
		return nil, fmt.Errorf("mcp: make the server's key: %w", err)
	}
	if s.eng == nil {
		s.mem = checkpoint.NewMemory()
		s.eng = engine.New(engine.Config{Checkpoints: s.mem, CheckpointPolicy: engine.CheckpointAtInterrupts})
	}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: cfg.Name, Version: cfg.Version}, &sdk.ServerOptions{
		Instructions:       cfg.Instructions,
		CompletionHandler:  s.complete,
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
	})
	seen := map[string]bool{}
	for i, a := range cfg.Agents {
		if a == nil {
			return nil, fmt.Errorf("%w: Config.Agents[%d] is nil", mcp.ErrInvalidConfig, i)
		}
		if seen[a.Info().Name] {
			return nil, fmt.Errorf("%w: two agents are named %q: tool names must be unique", mcp.ErrInvalidConfig, a.Info().Name)
		}
		seen[a.Info().Name] = true
		st, err := newServedTool(s, a)
		if err != nil {
			return nil, err
		}
		s.srv.AddTool(st.tool, st.handle)
	}
	return s, nil
}

// ServeStdio serves one client on the process's stdin and stdout until the
// client leaves or ctx ends.
func (s *Server) ServeStdio(ctx context.Context) error {
	err := s.srv.Run(ctx, &sdk.StdioTransport{})
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// Serve serves one client over t, as an in-memory transport in tests.
func (s *Server) Serve(ctx context.Context, t sdk.Transport) error {
	return s.srv.Run(ctx, t)
}

// servedTool is one agent exposed as a tool.
type servedTool struct {
	s     *Server
	a     agent.Agent
	tool  *sdk.Tool
	input *jsonschema.Schema
	// self says the agent's run checks its input against its input
	// schema first (agent.Info.ChecksInput): the server leaves the check
	// to it rather than decoding and validating the arguments twice.
	self bool
}

func newServedTool(s *Server, a agent.Agent) (*servedTool, error) {
	info := a.Info()
	in := info.InputSchema
	if len(in) == 0 {
		in = json.RawMessage(`{"type":"object"}`)
	}
	st := &servedTool{s: s, a: a, tool: &sdk.Tool{Name: info.Name, Description: info.Description, InputSchema: in}}
	if out := info.OutputSchema; objectSchema(out) {
		st.tool.OutputSchema = out
	}
	var err error
	if st.input, err = jsonschema.Compile(in); err != nil {
		return nil, fmt.Errorf("%w: agent %s: input %w", mcp.ErrInvalidConfig, info.Name, err)
	}
	st.self = info.ChecksInput && len(info.InputSchema) > 0
	return st, nil
}

// objectSchema reports whether raw is a schema of objects, the only output
// MCP allows a tool to declare.
func objectSchema(raw json.RawMessage) bool {
	var s struct {
		Type any `json:"type"`
	}
	return len(raw) > 0 && json.Unmarshal(raw, &s) == nil && s.Type == "object"
}

// handle runs the agent for one call: arguments checked against its input
// schema, the run through the engine, events as progress when the client
// asked for it, and questions as elicitation requests: asked during the
// call, as many rounds as the run asks, or, to clients that answer by
// calling again, as an input-required result.
func (st *servedTool) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	args := req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	if !st.self {
		if err := st.input.Validate(args); err != nil {
			return st.invalid(err.Error()), nil
		}
	}
	ctx, cancel := servedContext(ctx, req.Params.Meta)
	defer cancel()
	c := &servedCall{req: req}
	ctx = context.WithValue(ctx, callKey{}, c)
	var r runResult
	if req.Params.RequestState != "" {
		// The client answers the questions of a run that waits.
		rs, err := st.s.unseal(req.Params.RequestState)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		qs, err := askAll(rs.Questions)
		if err != nil {
			return errorResult(fmt.Sprintf("%s: %v", st.a.Info().Name, err)), nil
		}
		answers, err := answersFrom(qs, req.Params.InputResponses)
		if err != nil {
			return errorResult(fmt.Sprintf("%s: %v", st.a.Info().Name, err)), nil
		}
		r = c.drain(ctx, st.s.eng.Resume(ctx, st.a, rs.Root, answers))
		r.root = rs.Root
	} else {
		r = c.drain(ctx, st.s.eng.Run(ctx, st.a, args))
	}
	for {
		ie, asks := errors.AsType[*agent.InterruptedError](r.err)
		if !asks || r.root == "" {
			break
		}
		qs, err := askAll(ie.Questions)
		if err != nil {
			return errorResult(fmt.Sprintf("%s: %v", st.a.Info().Name, err)), nil
		}
		ss := req.Session
		if !canElicit(ss) {
			return unanswerable(st.a.Info().Name, qs, "it does not support elicitation"), nil
		}
		if multiRoundTrip(ss) {
			return &sdk.CallToolResult{InputRequests: inputRequests(qs), RequestState: st.s.seal(requestState{Root: r.root, Questions: ie.Questions})}, nil
		}
		answers, err := elicitAll(ctx, ss, qs)
		if err != nil {
			return errorResult(fmt.Sprintf("%s: %v", st.a.Info().Name, err)), nil
		}
		root := r.root
		c.reset()
		r = c.drain(ctx, st.s.eng.Resume(ctx, st.a, root, answers))
		r.root = root
	}
	st.s.forget(ctx, r.root)
	if ve, bad := errors.AsType[*agent.ValidationError](r.err); bad && st.self && ve.What == "input" && ve.Agent == st.a.Info().Name {
		return st.invalid(strings.TrimPrefix(ve.Error(), "invalid input for "+ve.Agent+": ")), nil
	}
	if r.err != nil {
		return errorResult(r.err.Error()), nil
	}
	added, set := c.added()
	return st.result(r, added, set), nil
}

// invalid is the result of a call whose arguments do not match the input
// schema, as why says.
func (st *servedTool) invalid(why string) *sdk.CallToolResult {
	return errorResult(fmt.Sprintf("invalid arguments for %s: %s; the arguments must match %s", st.a.Info().Name, why, st.tool.InputSchema))
}

// forget deletes a finished run from the server's own checkpoint store,
// and prunes runs left waiting longer than the idle timeout.
func (s *Server) forget(ctx context.Context, root string) {
	if s.mem == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if root != "" {
		_ = s.mem.Delete(ctx, root)
	}
	now := time.Now()
	s.mu.Lock()
	prune := now.Sub(s.lastPrune) > s.idle
	if prune {
		s.lastPrune = now
	}
	s.mu.Unlock()
	if prune {
		_, _ = s.mem.Prune(ctx, now.Add(-s.idle))
	}
}

// askAll puts each question as an elicitation.
func askAll(qs []agent.Question) ([]*asked, error) {
	out := make([]*asked, 0, len(qs))
	for _, q := range qs {
		a, err := elicitFor(q)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// runResult is what a served run ended with.
type runResult struct {
	out   json.RawMessage
	parts []model.Part
	root  string
	err   error
}

// drain follows a served run to its end: its events as progress, and
// what it ended with. The call keeps the run's state while it drains, so
// that following a run costs one method value rather than a range loop's
// variables moved to the heap.
func (c *servedCall) drain(ctx context.Context, events iter.Seq2[agent.Event, error]) runResult {
	c.drainCtx, c.ran = ctx, runResult{}
	events(c.take)
	r := c.ran
	c.drainCtx, c.ran = nil, runResult{}
	return r
}

// take is one event of the run drain follows.
func (c *servedCall) take(ev agent.Event, err error) bool {
	r := &c.ran
	if ev.Kind == agent.EventRunStart && ev.ParentID == "" {
		r.root = ev.RunID
	}
	c.report(c.drainCtx, ev)
	if ev.Kind == agent.EventRunEnd && ev.ParentID == "" {
		r.out, r.parts, r.err = ev.Output, ev.Parts, err
	} else if err != nil && r.err == nil {
		r.err = err
	}
	return true
}

// errorResult is a tool result the client shows as an error.
func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}
