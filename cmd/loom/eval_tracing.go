package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/observe/store"
)

// evalTracing is where an eval run is recorded.
type evalTracing struct {
	tp   trace.TracerProvider
	mp   metric.MeterProvider
	tr   *cli.Tracing
	path string // the trace store's file, when that is the exporter
}

// startEvalTracing sets up OpenTelemetry as cli.StartTracing does (the
// local trace store by default). A store that cannot be opened is a
// warning: the run goes on untraced (nil). stop flushes what is pending.
func startEvalTracing(ctx context.Context, stderr io.Writer) (tr *evalTracing, stop func()) {
	t, err := cli.StartTracing(ctx, "loom-eval", nil, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "loom eval: warning: the run is not traced: %v (set $%s to a writable file, or pass --no-trace)\n", err, store.PathEnv)
		return nil, func() {}
	}
	tr = &evalTracing{tp: t.TracerProvider, mp: t.MeterProvider, tr: t, path: t.StorePath}
	return tr, func() {
		if err := t.Flush(flushWait); err != nil {
			fmt.Fprintf(stderr, "loom eval: warning: flushing the trace: %v\n", err)
		}
	}
}

// apply sets the tracing fields of cfg.
func (tr *evalTracing) apply(cfg *engine.Config) { tr.tr.Apply(cfg) }
