package cli

import (
	"context"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
	"log/slog"
	"strings"
	"time"
)

// startTracing records the program's runs with OpenTelemetry, by default to
// the local trace store that `loom observe` shows ($LOOM_TRACE_DB, or the
// user cache directory); OTEL_TRACES_EXPORTER=otlp or console sends them
// elsewhere. Runs in the local store include their content (prompts, code,
// results), since that is what a developer looks at; for other exporters
// content is recorded only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
// is true. A store that cannot be opened is a warning, not a failure: the
// program runs untraced. It sets the tracing fields of cfg; shutdown flushes
// what is pending.
func startTracing(ctx context.Context, log *slog.Logger, getenv func(string) string, cfg *engine.Config) (shutdown func()) {
	tel, stop, err := observe.Setup(ctx, observe.Config{ServiceName: "loom-examples"})
	if err != nil {
		// The store's advice names `loom observe --db`, a flag this program
		// does not have; here the variable is what works.
		msg := strings.ReplaceAll(err.Error(), "--db or ", "")
		log.Warn("tracing is off: the trace store could not be opened; set "+store.PathEnv+" to a writable file, or pass --no-trace to run untraced and silence this", "err", msg)
		return func() {}
	}
	cfg.TracerProvider = tel.TracerProvider
	if ms, err := agentrt.NewMetrics(tel.MeterProvider); err == nil {
		cfg.Metrics = ms
	}
	capture := tel.Exporter == observe.ExporterStore
	if v := strings.ToLower(getenv(agentrt.CaptureContentEnv)); v != "" {
		capture = v == "true" || v == "1"
	}
	cfg.ContentCapture = engine.CaptureIf(capture)
	if tel.Store != nil {
		log.Debug("recording runs", "store", tel.Store.Path(), "view", "loom observe")
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stop(ctx); err != nil {
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
	cfg.TracerProvider, cfg.Metrics, cfg.ContentCapture = t.cfg.TracerProvider, t.cfg.Metrics, t.cfg.ContentCapture
}

// stop waits for the setup, then flushes what is pending.
func (t *tracingStart) stop() {
	<-t.done
	t.shutdown()
}
