package cli

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
)

// startTracing records the program's runs with OpenTelemetry, by default to
// the local trace store that `loom observe` shows ($LOOM_TRACE_DB, or the
// user cache directory); OTEL_TRACES_EXPORTER=otlp or console sends them
// elsewhere. Runs in the local store include their content (prompts, code,
// results), since that is what a developer looks at; for other exporters
// content is recorded only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
// is true. A store that cannot be opened is a warning, not a failure: the
// program runs untraced. shutdown flushes what is pending.
func startTracing(ctx context.Context, log *slog.Logger, getenv func(string) string) (opts []engine.Option, shutdown func()) {
	tel, stop, err := observe.Setup(ctx, observe.Config{ServiceName: "loom-examples"})
	if err != nil {
		// The store's advice names `loom observe --db`, a flag this program
		// does not have; here the variable is what works.
		msg := strings.ReplaceAll(err.Error(), "--db or ", "")
		log.Warn("tracing is off: the trace store could not be opened; set "+store.PathEnv+" to a writable file, or pass --no-trace to run untraced and silence this", "err", msg)
		return nil, func() {}
	}
	opts = []engine.Option{engine.WithTracerProvider(tel.TracerProvider)}
	if ms, err := agent.NewMetrics(tel.MeterProvider); err == nil {
		opts = append(opts, engine.WithMetrics(ms))
	}
	capture := tel.Exporter == observe.ExporterStore
	if v := strings.ToLower(getenv(agent.CaptureContentEnv)); v != "" {
		capture = v == "true" || v == "1"
	}
	opts = append(opts, engine.WithContentCapture(capture))
	if tel.Store != nil {
		log.Debug("recording runs", "store", tel.Store.Path(), "view", "loom observe")
	}
	return opts, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stop(ctx); err != nil {
			log.Warn("flushing traces", "err", err)
		}
	}
}
