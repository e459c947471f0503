package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
)

// ServerConfig says which agents a [Server] exposes and how they run.
type ServerConfig struct {
	// Name and Version identify the server to clients (defaults "loom", "1").
	Name, Version string
	// Agents are exposed as tools named for them; their input and output
	// schemas are the tools' schemas.
	Agents []agent.Agent
	// Engine runs every call, so its limits, hooks, tracing and usage
	// apply. Nil means an engine with in-memory checkpoints. Questions a
	// run asks (an approval) can only be answered through a client's
	// elicitation when the engine has a checkpoint store.
	Engine *engine.Engine
}

// Server exposes loom agents as MCP tools. Serve it over stdio with
// [Server.ServeStdio] or over streamable HTTP with [Server.Handler].
type Server struct {
	srv *sdk.Server
	eng *engine.Engine
	key [32]byte // signs the request states of runs waiting for answers
}

// NewServer returns a server for cfg's agents.
func NewServer(cfg ServerConfig) (*Server, error) {
	if len(cfg.Agents) == 0 {
		return nil, fmt.Errorf("%w: ServerConfig.Agents is empty: give the server at least one agent to expose", ErrInvalidConfig)
	}
	if cfg.Name == "" {
		cfg.Name = "loom"
	}
	if cfg.Version == "" {
		cfg.Version = "1"
	}
	s := &Server{eng: cfg.Engine}
	if _, err := rand.Read(s.key[:]); err != nil {
		return nil, fmt.Errorf("mcp: make the server's key: %w", err)
	}
	if s.eng == nil {
		s.eng = engine.New(engine.WithCheckpoints(checkpoint.NewMemory()))
	}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: cfg.Name, Version: cfg.Version}, nil)
	seen := map[string]bool{}
	for i, a := range cfg.Agents {
		if a == nil {
			return nil, fmt.Errorf("%w: ServerConfig.Agents[%d] is nil", ErrInvalidConfig, i)
		}
		if seen[a.Name()] {
			return nil, fmt.Errorf("%w: two agents are named %q: tool names must be unique", ErrInvalidConfig, a.Name())
		}
		seen[a.Name()] = true
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

// Handler serves clients over streamable HTTP. It keeps the SDK's
// DNS-rebinding protection: a request to a loopback address whose Host
// header is not a loopback name is refused. Listen on 127.0.0.1 unless the
// server must be reached from elsewhere.
func (s *Server) Handler() http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, nil)
}

// servedTool is one agent exposed as a tool.
type servedTool struct {
	s     *Server
	a     agent.Agent
	tool  *sdk.Tool
	input *validator.Schema
}

func newServedTool(s *Server, a agent.Agent) (*servedTool, error) {
	in := a.InputSchema()
	if len(in) == 0 {
		in = json.RawMessage(`{"type":"object"}`)
	}
	st := &servedTool{s: s, a: a, tool: &sdk.Tool{Name: a.Name(), Description: a.Description(), InputSchema: in}}
	if out := a.OutputSchema(); objectSchema(out) {
		st.tool.OutputSchema = out
	}
	doc, err := validator.UnmarshalJSON(bytes.NewReader(in))
	if err != nil {
		return nil, fmt.Errorf("%w: agent %s: its input schema is not JSON: %w", ErrInvalidConfig, a.Name(), err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource("input.json", doc); err != nil {
		return nil, fmt.Errorf("%w: agent %s: input schema: %w", ErrInvalidConfig, a.Name(), err)
	}
	if st.input, err = c.Compile("input.json"); err != nil {
		return nil, fmt.Errorf("%w: agent %s: input schema does not compile: %w", ErrInvalidConfig, a.Name(), err)
	}
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
// asked for it, and questions as elicitation requests.
func (st *servedTool) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	args := req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	v, err := validator.UnmarshalJSON(bytes.NewReader(args))
	if err == nil {
		err = st.input.Validate(v)
	}
	if err != nil {
		return errorResult(fmt.Sprintf("invalid arguments for %s: %v; the arguments must match %s", st.a.Name(), err, st.tool.InputSchema)), nil
	}
	ctx, cancel := servedContext(ctx, req.Params.Meta)
	defer cancel()
	p := &progress{req: req, token: req.Params.GetProgressToken()}
	var out json.RawMessage
	var root string
	if req.Params.RequestState != "" {
		// The client answers the questions of a run that waits.
		if root, err = st.s.unseal(req.Params.RequestState); err != nil {
			return errorResult(err.Error()), nil
		}
		answers, aerr := answersFrom(req.Params.InputResponses)
		if aerr != nil {
			return errorResult(fmt.Sprintf("%s: %v", st.a.Name(), aerr)), nil
		}
		out, _, err = st.run(ctx, st.s.eng.Resume(ctx, st.a, root, answers), p)
	} else {
		out, root, err = st.run(ctx, st.s.eng.Run(ctx, st.a, args), p)
	}
	var ie *agent.InterruptedError
	if errors.As(err, &ie) && root != "" {
		reqs, rerr := inputRequests(ie.Questions)
		if rerr != nil {
			return errorResult(rerr.Error()), nil
		}
		return &sdk.CallToolResult{InputRequests: reqs, RequestState: st.s.seal(root)}, nil
	}
	if err != nil {
		return errorResult(err.Error()), nil
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(out)}}}
	if st.tool.OutputSchema != nil {
		res.StructuredContent = out
	}
	return res, nil
}

// run drains a run's events, reporting them as progress, and returns its
// output, its root run id and its error.
func (st *servedTool) run(ctx context.Context, events func(func(agent.Event, error) bool), p *progress) (json.RawMessage, string, error) {
	var out json.RawMessage
	var root string
	var runErr error
	for ev, err := range events {
		if ev.Kind == agent.EventRunStart && ev.ParentID == "" {
			root = ev.RunID
		}
		p.report(ctx, ev)
		if ev.Kind == agent.EventRunEnd && ev.ParentID == "" {
			out, runErr = ev.Output, err
		} else if err != nil && runErr == nil {
			runErr = err
		}
	}
	return out, root, runErr
}

// errorResult is a tool result the client shows as an error.
func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}
