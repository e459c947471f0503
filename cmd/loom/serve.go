package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/trust"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/playground"
	"github.com/loomwork/loom/spec"
)

const serveUsage = `Usage: loom serve FILE [--port N] [flags]

Serves the playground for FILE at http://127.0.0.1:PORT/?token=…: the
declared agents and their composition tree, the YAML editable with errors
shown at their lines (saved to FILE only when valid), a form per agent,
runs streaming beside their events, and pending approvals to answer. Runs
belong to the server: closing or reloading the page loses nothing. They are
saved in the checkpoint database (--db) that loom run and loom resume use:
a restarted server lists the runs of FILE and resumes those that wait,
loom resume ID continues a run started here, and the page lists a run loom
run stopped. Runs are traced into the store loom observe shows (not with
--no-trace). Only the
URL printed, with its session token, opens it. A file that starts commands
or reaches URLs (its mcp entries) runs only once you trust them: the page
lists them and asks before the first run (as loom trust FILE does). Stop it
with Ctrl-C (exit status 130) or SIGTERM (143): runs still going are kept,
stopped, and the page's Continue here (or loom resume ID --continue)
finishes them.

Flags:
  --port N             port (default 7894; 0 picks a free one)
  --model, --log-level, --timeout, --db, --root, --no-trace, --trusted-code   as for loom run
                       (in_process sandboxes need --trusted-code, also
                       when the file is edited in the playground)
`

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer, con console) int {
	cmd := newCommand("loom serve", "serve", serveUsage, stdout, stderr)
	fs, usageErr := cmd.fs, cmd.usageErr
	var rs runSettings
	settingsFlags(fs, &rs)
	port := fs.Int("port", 7894, "port")
	noTrace := noTraceFlag(fs)
	pos, status, quit := cmd.parse(args)
	switch {
	case quit:
		return status
	case len(pos) != 1:
		return usageErr("give one file: loom serve FILE")
	case *port < 0 || *port > 65535:
		return usageErr("--port %d is out of range: use 1-65535, or 0 for a free port", *port)
	}
	// Load once the way run does, for .env.local, the default model and
	// the file's errors; the playground loads it again to own its agents.
	// Opened before .env.local is read: a project cannot move it.
	grants, err := trust.Open()
	if err != nil {
		fmt.Fprintf(stderr, "loom serve: %v\n", err)
		return exitFailed
	}
	rs.pageAsks = true // the page shows the file's commands and asks before a run
	file, err := projectArg(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "loom serve: %v\n", err)
		return exitInvalid
	}
	l, err := load(ctx, file, rs, con.getenv, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "loom serve: %v\n", err)
		return exitInvalid
	}
	defaultModel := l.project.Doc.File.Model
	l.close()
	store, err := openCheckpoints(ctx, l.dbPath)
	if err != nil {
		fmt.Fprintf(stderr, "loom serve: %v\n", err)
		return exitInvalid
	}
	defer store.Close()
	sessions, err := openSessions(ctx, l.dbPath)
	if err != nil {
		fmt.Fprintf(stderr, "loom serve: %v\n", err)
		return exitInvalid
	}
	defer sessions.Close()
	open := func(ref string) (model.Model, error) { return openModel(ref, con.getenv, l.envFiles, l.log) }
	m, err := open(defaultModel)
	if err != nil {
		fmt.Fprintf(stderr, "loom serve: %v\n", err)
		return exitInvalid
	}
	// Runs are labelled with the file, as loom run labels them, so the page
	// lists the runs of the file whoever started them, and loom resume
	// continues the page's runs.
	labels := map[string]string{fileLabel: absPath(file)}
	cfg := engine.Config{Model: m, Checkpoints: store, Limits: agent.Limits{Timeout: rs.timeout}, Logger: l.log, Labels: labels}
	if !*noTrace {
		defer startTracing(ctx, "serve", stderr, &cfg)()
	}
	pg, err := playground.New(playground.Config{Path: file, Engine: engine.New(cfg), Labels: labels,
		Registry: spec.Registry{Models: open, Getenv: con.getenv, Checkpoints: store, TrustedCode: rs.trusted, Isolated: isolatedConfig(true)},
		Options:  spec.Options{Root: rs.root}, Grants: grants, Sessions: sessions})
	if err != nil {
		fmt.Fprintf(stderr, "loom serve: %v\n", err)
		return exitInvalid
	}
	defer pg.Close()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		fmt.Fprintf(stderr, "loom serve: %v\n", err)
		return exitFailed
	}
	srv := &http.Server{Handler: pg.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "loom playground for %s: http://%s/?token=%s\n", file, ln.Addr(), pg.Token())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
		if code, msg, ok := interrupted(ctx, "serve", "the playground stopped; runs it was running are kept, stopped: loom resume ID --continue finishes one"); ok {
			fmt.Fprint(stderr, msg)
			return code
		}
		return exitOK
	case err := <-done:
		if err != nil && !strings.Contains(err.Error(), "Server closed") {
			fmt.Fprintf(stderr, "loom serve: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
}
