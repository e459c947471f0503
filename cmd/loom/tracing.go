package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/observe/store"
)

// fileLabel is the checkpoint label naming the loom file a run came from
// (its absolute path), so loom resume, the playground and loom run find
// each other's runs in the checkpoint store.
const fileLabel = "loom.file"

// flushWait bounds how long loom waits for pending traces at the end.
const flushWait = 10 * time.Second

// startTracing records the runs of loom run, serve and resume as the
// examples do (cli.StartTracing): in the local trace store that loom
// observe shows, or wherever $OTEL_TRACES_EXPORTER says, with content in
// the local store; console output goes to stderr. A store that cannot be
// opened is a warning: the runs go on untraced. It sets the tracing fields
// of cfg; stop flushes what is pending. loom run and resume run once and
// exit, so their spans go to the store's spool (cli.StartOneShotTracing);
// serve writes the database, where its runs show as they go.
func startTracing(ctx context.Context, cmd string, stderr io.Writer, cfg *engine.Config) (stop func()) {
	start := cli.StartOneShotTracing
	if cmd == "serve" {
		start = cli.StartTracing
	}
	tr, err := start(ctx, "loom", stderr, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "loom %s: warning: the run is not traced: %v (set $%s to a writable file, or OTEL_TRACES_EXPORTER=none)\n", cmd, err, store.PathEnv)
		return func() {}
	}
	tr.Apply(cfg)
	return func() {
		if err := tr.Flush(flushWait); err != nil {
			fmt.Fprintf(stderr, "loom %s: warning: flushing the trace: %v\n", cmd, err)
		}
	}
}
