package cli

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
)

// Tracing is how a command records its runs with OpenTelemetry: what
// [StartTracing] set up.
type Tracing struct {
	// Engine holds the fields of an engine's Config that trace runs: the
	// tracer, the metrics and whether spans carry content ([Tracing.Apply]).
	Engine engine.Config
	// TracerProvider and MeterProvider are the providers set up, for
	// what is traced outside an engine.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// StorePath is the local trace store's file, that `loom observe`
	// shows; "" when traces go to another exporter.
	StorePath string

	shutdown func(context.Context) error
}

// StartTracing records a command's runs: by default in the local trace
// store ($LOOM_TRACE_DB, else the user cache directory), or wherever
// $OTEL_TRACES_EXPORTER says (otlp, console: to console, or stdout when
// nil). Runs in the local store include their content (prompts, code,
// results), since that is what a developer looks at there; for other
// exporters content is recorded only when
// $OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is true, and the
// variable, read with getenv, overrides either way. service is the
// service.name. An error means the trace store could not be opened: the
// caller warns and runs untraced. Call [Tracing.Flush] at the end.
// StartTracing suits a long-lived command (a server), whose runs the
// local store shows as they go; a command that runs once and exits uses
// [StartOneShotTracing].
func StartTracing(ctx context.Context, service string, console io.Writer, getenv func(string) string) (*Tracing, error) {
	return startTracingWith(ctx, observe.Config{ServiceName: service, Stdout: console}, getenv)
}

// StartOneShotTracing is [StartTracing] for a command that runs once and
// exits (an example CLI, loom run): for the local store, its spans go to
// a spool file beside the database rather than into it
// ([observe.Config.ShortLived]), which saves the process the database's
// open, write and checkpoint; the viewer and the next program that opens
// the database store them.
func StartOneShotTracing(ctx context.Context, service string, console io.Writer, getenv func(string) string) (*Tracing, error) {
	return startTracingWith(ctx, observe.Config{ServiceName: service, Stdout: console, ShortLived: true}, getenv)
}

func startTracingWith(ctx context.Context, cfg observe.Config, getenv func(string) string) (*Tracing, error) {
	tel, shutdown, err := observe.Setup(ctx, cfg)
	if err != nil {
		return nil, err
	}
	t := &Tracing{TracerProvider: tel.TracerProvider, MeterProvider: tel.MeterProvider, shutdown: shutdown}
	t.Engine = engine.Config{TracerProvider: tel.TracerProvider, ContentCapture: engine.CaptureIf(captureContent(tel.Exporter, getenv))}
	if ms, err := agentrt.NewMetrics(tel.MeterProvider); err == nil {
		t.Engine.Metrics = ms
	}
	t.StorePath = tel.StorePath
	return t, nil
}

// Apply sets the tracing fields of cfg: its tracer provider, metrics and
// content capture.
func (t *Tracing) Apply(cfg *engine.Config) { setTracing(cfg, t.Engine) }

// setTracing sets the tracing fields of cfg to those of from.
func setTracing(cfg *engine.Config, from engine.Config) {
	cfg.TracerProvider, cfg.Metrics, cfg.ContentCapture = from.TracerProvider, from.Metrics, from.ContentCapture
}

// Flush sends what is pending and stops tracing, waiting at most timeout.
func (t *Tracing) Flush(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return t.shutdown(ctx)
}

// captureContent reports whether the traced runs include their content:
// yes in the local trace store, which is what a developer reads, else
// only when $OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT says so;
// the variable overrides either way.
func captureContent(exp observe.Exporter, getenv func(string) string) bool {
	if v := strings.ToLower(getenv(agentrt.CaptureContentEnv)); v != "" {
		return v == "true" || v == "1"
	}
	return exp == observe.ExporterStore
}

// startTracing traces an example's runs (see [StartTracing]) by setting
// the tracing fields of cfg. A store that cannot be opened is a warning,
// not a failure: the program runs untraced. shutdown flushes what is
// pending.
func startTracing(ctx context.Context, log *slog.Logger, getenv func(string) string, cfg *engine.Config) (shutdown func()) {
	tr, err := StartOneShotTracing(ctx, "loom-examples", nil, getenv)
	if err != nil {
		// The store's advice names `loom observe --db`, a flag this program
		// does not have; here the variable is what works.
		msg := strings.ReplaceAll(err.Error(), "--db or ", "")
		log.Warn("tracing is off: the trace store could not be opened; set "+store.PathEnv+" to a writable file, or pass --no-trace to run untraced and silence this", "err", msg)
		return func() {}
	}
	if tr.StorePath != "" {
		log.Debug("recording runs", "store", tr.StorePath, "view", "loom observe")
	}
	tr.Apply(cfg)
	return func() {
		if err := tr.Flush(5 * time.Second); err != nil {
			log.Warn("flushing traces", "err", err)
		}
	}
}

// tracingStart is tracing being set up in the background (see
// [startTracingAsync]).
type tracingStart struct {
	done     chan struct{}
	cfg      engine.Config // the tracing fields startTracing set
	shutdown func()
}

// startTracingAsync starts tracing in the background, so that opening the
// trace store overlaps with what the program does before its first run
// (opening the model, building the agent, the sandbox worker's start).
// apply sets the tracing fields of an engine's Config once it is set up;
// stop waits for the setup, then flushes and closes the store.
func startTracingAsync(ctx context.Context, log *slog.Logger, getenv func(string) string) *tracingStart {
	t := &tracingStart{done: make(chan struct{})}
	go func() {
		defer close(t.done)
		t.shutdown = startTracing(ctx, log, getenv, &t.cfg)
	}()
	return t
}

// apply waits for the tracing to be set up, then sets its fields of cfg.
func (t *tracingStart) apply(cfg *engine.Config) {
	<-t.done
	setTracing(cfg, t.cfg)
}

// stop waits for the setup, then flushes what is pending.
func (t *tracingStart) stop() {
	<-t.done
	t.shutdown()
}
