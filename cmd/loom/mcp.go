package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/joho/godotenv"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/mcp"
	"github.com/loomwork/loom/model"
	_ "github.com/loomwork/loom/model/providers" // registers every provider with model.Open
	"github.com/loomwork/loom/sandbox"
)

const mcpUsage = `Usage: loom mcp serve [--http 127.0.0.1:PORT] [--model provider:model] [--sandbox isolated|inprocess]

Serves loom's Coder→Sandbox workflow as an MCP tool named code_execution: a
model writes JavaScript for the task, a sandbox runs it, and the answer comes
back as the tool's result. Over stdio by default (for an MCP client that
starts this command), or over streamable HTTP at http://ADDR/mcp.

Options:
  --http ADDR        serve streamable HTTP on ADDR, as 127.0.0.1:8931
  --model ID         provider:model (default $MODEL, else openai); keys from
                     the environment or .env.local, as the example CLIs
  --sandbox KIND     isolated (worker processes with OS limits, the default)
                     or inprocess (trusted code only: needs --trusted-code)
  --trusted-code     accept that inprocess runs the model's code with this
                     program's privileges
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
	fs := flag.NewFlagSet("loom mcp serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("http", "", "serve streamable HTTP on this address")
	modelID := fs.String("model", "", "provider:model")
	kind := fs.String("sandbox", "isolated", "isolated or inprocess")
	trusted := fs.Bool("trusted-code", false, "accept that --sandbox inprocess runs the model's code with this program's privileges")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, mcpUsage)
			return 0
		}
		fmt.Fprintf(stderr, "loom mcp serve: %v: run 'loom help mcp'\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loom mcp serve: unexpected argument %q: run 'loom help mcp'\n", fs.Arg(0))
		return 2
	}
	if *kind != "isolated" && *kind != "inprocess" {
		fmt.Fprintf(stderr, "loom mcp serve: --sandbox %q: use isolated or inprocess\n", *kind)
		return 2
	}
	if *kind == "inprocess" && !*trusted {
		fmt.Fprintln(stderr, "loom mcp serve: --sandbox inprocess runs the model's code in this process, with its privileges: it is for trusted code only; pass --trusted-code to accept that, or use --sandbox isolated")
		return 2
	}
	if *addr != "" {
		if _, _, err := net.SplitHostPort(*addr); err != nil {
			fmt.Fprintf(stderr, "loom mcp serve: --http %q: use HOST:PORT, as 127.0.0.1:8931\n", *addr)
			return 2
		}
	}
	if err := loadDotEnv(".env.local"); err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
		return 1
	}
	id := modelOrDefault(*modelID)
	m, err := open(id)
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: --model %s: %v\n", id, err)
		return 2
	}
	var exec sandbox.Executor
	if *kind == "isolated" {
		exec, err = sandbox.NewIsolated()
	} else {
		exec, err = sandbox.NewInProcess()
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
	srv, err := mcp.NewServer(mcp.ServerConfig{Agents: []agent.Agent{ce}})
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
		return 1
	}
	if *addr == "" {
		err = srv.ServeStdio(ctx)
	} else {
		err = serveMCPHTTP(ctx, srv, *addr, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loom mcp serve: %v\n", err)
		return 1
	}
	return 0
}

// serveMCPHTTP serves srv at http://addr/mcp until ctx ends.
func serveMCPHTTP(ctx context.Context, srv *mcp.Server, addr string, stderr io.Writer) error {
	host, _, _ := net.SplitHostPort(addr) // checked with the flags
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(stderr, "loom mcp serve: warning: %s is reachable from other machines; anyone who can reach it can run code through your model key\n", host)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler())
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
		return nil
	}
}

// loadDotEnv loads path into the environment when it exists; variables
// already set win, as in the example CLIs.
func loadDotEnv(path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	if err := godotenv.Load(path); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}
