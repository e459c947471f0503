package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// evalTracing is where an eval run is recorded.
type evalTracing struct {
	tp     trace.TracerProvider
	mp     metric.MeterProvider
	engine engine.Config // the tracing fields of the engine's config
	path   string        // the trace store's file, when that is the exporter
}

// startEvalTracing sets up OpenTelemetry as observe.Setup chooses (the
// local trace store by default). A store that cannot be opened is a
// warning: the run goes on untraced (nil). stop flushes what is pending.
func startEvalTracing(ctx context.Context, stderr io.Writer) (tr *evalTracing, stop func()) {
	tel, shutdown, err := observe.Setup(ctx, observe.Config{ServiceName: "loom-eval"})
	if err != nil {
		fmt.Fprintf(stderr, "loom eval: warning: the run is not traced: %v (set $%s to a writable file, or pass --no-trace)\n", err, store.PathEnv)
		return nil, func() {}
	}
	tr = &evalTracing{tp: tel.TracerProvider, mp: tel.MeterProvider,
		engine: engine.Config{TracerProvider: tel.TracerProvider, ContentCapture: engine.CaptureIf(captureContent(tel.Exporter))}}
	if ms, err := agentrt.NewMetrics(tel.MeterProvider); err == nil {
		tr.engine.Metrics = ms
	}
	if tel.Store != nil {
		tr.path = tel.Store.Path()
	}
	return tr, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := shutdown(sctx); err != nil {
			fmt.Fprintf(stderr, "loom eval: warning: flushing the trace: %v\n", err)
		}
	}
}

// apply sets the tracing fields of cfg.
func (tr *evalTracing) apply(cfg *engine.Config) {
	cfg.TracerProvider, cfg.ContentCapture, cfg.Metrics = tr.engine.TracerProvider, tr.engine.ContentCapture, tr.engine.Metrics
}

// captureContent reports whether the traced runs include their content
// (prompts, code, answers): yes in the local trace store, which is what a
// developer reads, else only when $OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
// says so; the variable overrides either way.
func captureContent(exp observe.Exporter) bool {
	if v := strings.ToLower(os.Getenv(agentrt.CaptureContentEnv)); v != "" {
		return v == "true" || v == "1"
	}
	return exp == observe.ExporterStore
}
