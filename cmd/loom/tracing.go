package main

import (
	"context"
	"fmt"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
	"io"
	"time"
)

// fileLabel is the checkpoint label naming the loom file a run came from
// (its absolute path), so loom resume, the playground and loom run find
// each other's runs in the checkpoint store.
const fileLabel = "loom.file"

// startTracing records the runs of loom run, serve and resume as the
// examples do: in the local trace store that loom observe shows
// ($LOOM_TRACE_DB, else the user cache directory), or wherever
// $OTEL_TRACES_EXPORTER says, with content in the local store. A store that
// cannot be opened is a warning: the runs go on untraced. It sets the
// tracing fields of cfg; stop flushes what is pending.
func startTracing(ctx context.Context, cmd string, stderr io.Writer, cfg *engine.Config) (stop func()) {
	tel, shutdown, err := observe.Setup(ctx, observe.Config{ServiceName: "loom", Stdout: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "loom %s: warning: the run is not traced: %v (set $%s to a writable file, or OTEL_TRACES_EXPORTER=none)\n", cmd, err, store.PathEnv)
		return func() {}
	}
	cfg.TracerProvider, cfg.ContentCapture = tel.TracerProvider, engine.CaptureIf(captureContent(tel.Exporter))
	if ms, err := agentrt.NewMetrics(tel.MeterProvider); err == nil {
		cfg.Metrics = ms
	}
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := shutdown(sctx); err != nil {
			fmt.Fprintf(stderr, "loom %s: warning: flushing the trace: %v\n", cmd, err)
		}
	}
}
