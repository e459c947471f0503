package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/internal/localweb"
	mcpserver "github.com/loomwork/loom/mcp/server"
	"github.com/loomwork/loom/model"
	_ "github.com/loomwork/loom/model/providers" // registers every provider with model.Open
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/spec"
)

const mcpUsage = `Usage: loom mcp serve [FILE] [--http 127.0.0.1:PORT] [flags]

With FILE (a loom/v1 file, or a folder: its loom.yaml or AIGNE project),
serves the file's entry agent (or every agent --agents names; every agent
when the file has no entry) as MCP tools named for the agents. Without
FILE, serves loom's Coder→Sandbox workflow as a tool named code_execution:
a model writes JavaScript for the task, a sandbox runs it, and the answer
comes back as the tool's result. With FILE it also offers the resources,
knowledge documents and prompts the file declares (resources:, knowledge:,
prompts:, with completions), the files the project's entries name
(instructions, code, schemas) as resources, and each AI agent's
instructions as a prompt whose arguments are the agent's input fields; an
entry with model: client uses the calling client's model (MCP sampling),
so it needs no key; a run's log lines (a function's console and
tools.log lines among them) reach the client at the level it sets, and a
function's tools.progress calls as progress. A function with returns: content
answers with text, image, audio and resource content. Over stdio by default (for an MCP client that starts this
command), or over streamable HTTP at http://ADDR/mcp.

Flags:
  --http ADDR        serve streamable HTTP on ADDR, as 127.0.0.1:8931
  --model ID         provider[:model] (default the file's model:, then
                     $MODEL, then openai); keys from the environment or
                     .env.local, as loom run
  --agents A,B       with FILE: the agents to serve (default the entry)
  --log-level LEVEL  with FILE: ERROR, WARN (default), INFO, DEBUG or TRACE,
                     logged on stderr
  --timeout D        with FILE: time limit of one call (default 5m)
  --db PATH          with FILE: checkpoint database (default
                     $LOOM_CHECKPOINT_DB, else under the user cache directory)
  --root DIR         with FILE: let it name files anywhere under DIR (default:
                     its own folder only); for trusted setups, said on stderr
  --sandbox KIND     without FILE: isolated (worker processes with OS limits,
                     the default) or inprocess (trusted code only: needs
                     --trusted-code); a file's entries name their own
  --trusted-code     accept that inprocess (without FILE), or the file's
                     sandboxes of kind in_process (each marked trusted:
                     true), run the model's code with this program's
                     privileges, where any snippet can kill it
`

// modelOpener opens a model by id; tests give a scripted one.
type modelOpener func(id string) (model.Model, error)

func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer, open modelOpener) int {
	if len(args) == 0 || args[0] != "serve" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, mcpUsage)
			return 0
		}
		fmt.Fprint(stderr, mcpUsage)
		return 2
	}
	cmd := newCommand("loom mcp serve", "mcp", mcpUsage, stdout, stderr)
	fs := cmd.fs
	rs := runSettings{}
	settingsFlags(fs, &rs)
	addr := fs.String("http", "", "serve streamable HTTP on this address")
	kind := fs.String("sandbox", "isolated", "isolated or inprocess")
	trusted := &rs.trusted // --trusted-code, registered by settingsFlags
	names := fs.String("agents", "", "the agents to serve")
	pos, status, quit := cmd.parse(args[1:])
	if quit {
		return status
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case len(pos) > 1:
		fmt.Fprintf(stderr, "loom mcp serve: unexpected argument %q: give at most one file: run 'loom help mcp'\n", pos[1])
		return 2
	case len(pos) == 0 && (set["agents"] || set["log-level"] || set["timeout"] || set["db"] || set["root"]):
		fmt.Fprintln(stderr, "loom mcp serve: --agents, --log-level, --timeout, --db and --root go with a FILE: run 'loom help mcp'")
		return 2
	case len(pos) == 1 && set["sandbox"]:
		fmt.Fprintln(stderr, "loom mcp serve: --sandbox goes without a FILE: a file's entries name their own sandbox")
		return 2
	case rs.timeout <= 0:
		fmt.Fprintf(stderr, "loom mcp serve: --timeout %v: it must be positive, as 2m\n", rs.timeout)
		return 2
	}
	if !set["log-level"] {
		rs.logLevel = "WARN"
	}
	sandboxKind, err := cli.SandboxKind(*kind, *trusted)
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
		return 2
	}
	*kind = sandboxKind
	if *addr != "" {
		if _, _, err := net.SplitHostPort(*addr); err != nil {
			fmt.Fprintf(stderr, "loom mcp serve: --http %q: use HOST:PORT, as 127.0.0.1:8931\n", *addr)
			return 2
		}
	}
	if len(pos) == 1 {
		file, err := projectArg(pos[0])
		if err != nil {
			fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
			return 2
		}
		return serveFile(ctx, file, rs, *names, *addr, stderr)
	}
	envFiles := cli.DotEnvFiles()
	if err := cli.LoadDotEnv(envFiles); err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
		return 1
	}
	id := modelOrDefault(rs.model)
	m, err := open(id)
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: --model %s: %v\n", id, cli.MissingKey(err, envFiles))
		return 2
	}
	var exec sandbox.Executor
	if *kind == "isolated" {
		exec, err = sandbox.NewIsolated(isolatedConfig(true))
	} else {
		exec, err = sandbox.NewInProcess(sandbox.InProcessConfig{})
	}
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: start the sandbox: %v\n", err)
		return 1
	}
	defer exec.Close()
	ce, err := codeexec.New(codeexec.Config{Model: m, Sandbox: exec})
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
		return 1
	}
	defer ce.Close()
	srv, err := mcpserver.New(mcpserver.Config{Agents: []agent.Agent{ce}})
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
		return 1
	}
	if *addr == "" {
		err = srv.ServeStdio(ctx)
	} else {
		err = serveMCPHTTP(ctx, srv, *addr, stderr)
	}
	return stopStatus(ctx, err, stderr)
}

// stopStatus is the exit status of an MCP server that stopped with err: 130
// or 143 when a signal stopped it.
func stopStatus(ctx context.Context, err error, stderr io.Writer) int {
	if code, msg, ok := interrupted(ctx, "mcp serve", "the server stopped"); ok {
		fmt.Fprint(stderr, msg)
		return code
	}
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
		return 1
	}
	return 0
}

// serveFile serves the agents of a loom/v1 file over MCP, loaded and run
// as loom run does (models, keys, checkpoints); questions a run asks (an
// approval) reach the client as elicitations.
func serveFile(ctx context.Context, path string, rs runSettings, names, addr string, stderr io.Writer) int {
	rs.clientLog = true
	l, err := load(ctx, path, rs, os.Getenv, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
		return 2
	}
	defer l.close()
	agents, err := served(l.project, names)
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
		return 2
	}
	srv, err := mcpserver.New(mcpserver.Config{Name: cmp.Or(l.project.Doc.File.Name, "loom"), Instructions: l.project.Doc.File.Description, Agents: agents, Engine: l.engine})
	if err == nil {
		err = l.project.AddTo(srv)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
		return 1
	}
	// Subscribed clients hear when a file the project serves changes.
	wctx, stopWatch := context.WithCancel(ctx)
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		l.project.Watch(wctx, srv, 0)
	}()
	defer func() {
		stopWatch()
		<-watching
	}()
	if addr == "" {
		err = srv.ServeStdio(ctx)
	} else {
		err = serveMCPHTTP(ctx, srv, addr, stderr)
	}
	return stopStatus(ctx, err, stderr)
}

// served returns the agents to serve: those names lists (comma-separated),
// else the entry, else every declared agent.
func served(p *spec.Project, names string) ([]agent.Agent, error) {
	var out []agent.Agent
	switch {
	case names != "":
		for _, n := range strings.Split(names, ",") {
			a, err := agentNamed(p, "--agents", strings.TrimSpace(n))
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
	case p.Entry != nil:
		out = append(out, p.Entry)
	default:
		for _, e := range p.Doc.Agents {
			if a := p.Agent(e.Name); a != nil {
				out = append(out, a)
			}
		}
	}
	return out, nil
}

// serveMCPHTTP serves srv at http://addr/mcp until ctx ends.
func serveMCPHTTP(ctx context.Context, srv *mcpserver.Server, addr string, stderr io.Writer) error {
	host, _, _ := net.SplitHostPort(addr) // checked with the flags
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(stderr, "loom mcp serve: warning: %s is reachable from other machines; anyone who can reach it can run code through your model key\n", host)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	// The guard the viewer and the playground use: a loopback (or the
	// address's own) Host, no other origin's page, JSON bodies.
	var hosts []string
	if host != "" {
		hosts = append(hosts, host)
	}
	mux.Handle("/mcp", localweb.Guard(srv.Handler(), localweb.Config{Hosts: hosts}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "loom mcp serve: serving MCP at http://%s/mcp\n", l.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if hs.Shutdown(sctx) != nil {
			_ = hs.Close() // streams still open after the grace period are cut
		}
		<-done
		_ = srv.Close() // sessions whose clients never said goodbye
		return nil
	}
}
