package observe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/loomwork/loom/internal/config"
	"github.com/loomwork/loom/observe/store"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Exporter names where [Setup] sends spans.
type Exporter string

// The exporters [Setup] knows.
const (
	// ExporterStore writes spans to the SQLite trace store that `loom
	// observe` reads (see package store).
	ExporterStore Exporter = "store"
	// ExporterStdout writes spans, and metrics, as JSON lines to a writer.
	ExporterStdout Exporter = "stdout"
	// ExporterOTLP sends spans and metrics with OTLP over HTTP, configured
	// by the standard OTEL_EXPORTER_OTLP_* variables (endpoint, headers,
	// timeout, compression) unless Config gives options.
	ExporterOTLP Exporter = "otlp"
	// ExporterNone records nothing; the providers are still valid.
	ExporterNone Exporter = "none"
)

// TracesExporterEnv is the standard variable read when [Config.Exporter] is
// empty: "otlp", "console" (stdout), "none", or "store" (loom's own value).
const TracesExporterEnv = "OTEL_TRACES_EXPORTER"

// Config configures [Setup]. The zero value records to the trace store at
// its default path.
type Config struct {
	// Exporter selects where spans go. Empty means $OTEL_TRACES_EXPORTER when
	// set, else ExporterStore.
	Exporter Exporter
	// ServiceName is the resource's service.name; default "loom".
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override it.
	ServiceName string

	// StorePath is the trace database for ExporterStore; empty means
	// store.DefaultPath ($LOOM_TRACE_DB or the user cache directory).
	StorePath string
	// Store configures the store (retention, prices, …); StorePath, when
	// set, is its Path.
	Store store.Config
	// ShortLived says the program records one run or a few and exits, as
	// a one-shot CLI does. For ExporterStore with loom's own tracer
	// provider it then does not open the database: the spans go to a
	// spool file beside it ([store.Spool]), which the viewer and the next
	// program that opens the database ingest. That saves the program the
	// database's open, write and checkpoint; a long-lived program (a
	// server) should leave it false, so that its runs show as they go.
	// Where spool files cannot be used, the program writes the database.
	ShortLived bool

	// Stdout receives ExporterStdout's output; default os.Stdout. A CLI
	// that prints answers on stdout should pass os.Stderr.
	Stdout io.Writer

	// OTLPTraceOptions and OTLPMetricOptions replace the defaults of
	// ExporterOTLP, which read the OTEL_EXPORTER_OTLP_* variables.
	OTLPTraceOptions  []otlptracehttp.Option
	OTLPMetricOptions []otlpmetrichttp.Option

	// MetricReaders are added to the meter provider whatever the exporter,
	// for example a sdkmetric.ManualReader in tests or a Prometheus reader.
	// ExporterStore has no metric reader of its own: metrics are not stored.
	MetricReaders []sdkmetric.Reader
	// MetricInterval is how often stdout and OTLP metrics are exported;
	// default 60s. Shutdown always exports what is pending.
	MetricInterval time.Duration

	// Batch configures the batching of spans: the [BatchProcessor] in
	// front of the SDK's span exporter, or the writes of loom's own
	// [TracerProvider] to the store.
	// A zero field takes the standard OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
	// OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_SCHEDULE_DELAY or
	// OTEL_BSP_EXPORT_TIMEOUT (milliseconds) when set, else its default.
	Batch BatchConfig
	// SpanProcessors are added after the exporter's batch processor.
	SpanProcessors []sdktrace.SpanProcessor
	// Sampler defaults to the SDK's default (parent-based, always on).
	Sampler sdktrace.Sampler
}

// Telemetry holds the providers [Setup] built. Nothing is global: give them
// to loom on the context (agentrt.WithTracerProvider(ctx, TracerProvider), and
// agentrt.WithMetrics(ctx, ms) with ms from agentrt.NewMetrics(MeterProvider)),
// or to a workflow.Engine with its options, or set them as otel's globals
// yourself.
type Telemetry struct {
	// TracerProvider is loom's own [*TracerProvider] for ExporterStore
	// (unless Config sets a Sampler or SpanProcessors), else the SDK's
	// *sdktrace.TracerProvider.
	TracerProvider trace.TracerProvider
	MeterProvider  *sdkmetric.MeterProvider
	// Store is the trace store ExporterStore writes to; nil otherwise,
	// and nil when a short-lived program spools ([Config.ShortLived]). The
	// shutdown function closes it.
	Store *store.Store
	// StorePath is the trace database's file for ExporterStore, whether
	// the spans go to it or to its spool; "" otherwise.
	StorePath string
	// Exporter is the exporter chosen.
	Exporter Exporter
	// Processor batches spans for the SDK's exporter (its Dropped method
	// counts the spans lost to a full queue); nil for ExporterNone and when
	// loom's own tracer provider records to the store (see
	// [Telemetry.Dropped]).
	Processor *BatchProcessor
}

// provider is what both tracer providers of [Setup] can do beyond
// trace.TracerProvider.
type provider interface {
	trace.TracerProvider
	ForceFlush(ctx context.Context) error
	Shutdown(ctx context.Context) error
}

// ForceFlush exports or stores every span that ended before the call.
func (t *Telemetry) ForceFlush(ctx context.Context) error {
	if p, ok := t.TracerProvider.(provider); ok {
		return p.ForceFlush(ctx)
	}
	return nil
}

// Dropped returns how many spans were lost to a full queue or after
// shutdown.
func (t *Telemetry) Dropped() uint64 {
	switch {
	case t.Processor != nil:
		return t.Processor.Dropped()
	default:
		if tp, ok := t.TracerProvider.(*TracerProvider); ok {
			return tp.Dropped()
		}
	}
	return 0
}

// ErrUnknownExporter is returned by [Setup] for an exporter name it does not
// know.
var ErrUnknownExporter = errors.New("observe: unknown exporter")

// ErrInvalidConfig marks a [Config] that [Setup] refuses, such as a
// negative MetricInterval.
var ErrInvalidConfig = errors.New("observe: invalid config")

// Setup builds a tracer provider and a meter provider that export as cfg
// says, and returns them with a shutdown function that flushes and stops
// both (and closes the store). Call shutdown before the program exits, or
// the last spans are lost. Calling shutdown again does nothing.
func Setup(ctx context.Context, cfg Config) (tel *Telemetry, shutdown func(context.Context) error, err error) {
	kind, err := resolveExporter(cfg.Exporter)
	if err != nil {
		return nil, nil, err
	}
	res, err := newResource(ctx, cfg.ServiceName)
	if err != nil {
		return nil, nil, err
	}
	interval := cfg.MetricInterval
	switch {
	case interval < 0:
		return nil, nil, fmt.Errorf("%w: MetricInterval is %v: use 0 for the default of a minute, or a positive duration", ErrInvalidConfig, interval)
	case interval == 0:
		interval = time.Minute
	}
	if err := config.Check("observe.Config.Store", cfg.Store); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if cfg.StorePath != "" {
		cfg.Store.Path = cfg.StorePath
	}
	batch, err := batchFromEnv(cfg.Batch)
	if err != nil {
		return nil, nil, err
	}
	if _, err := batch.resolve(); err != nil {
		return nil, nil, err
	}
	tel = &Telemetry{Exporter: kind}
	tracerOpts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	meterOpts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	if cfg.Sampler != nil {
		tracerOpts = append(tracerOpts, sdktrace.WithSampler(cfg.Sampler))
	}

	var spanExp sdktrace.SpanExporter
	switch {
	case kind == ExporterStore && cfg.Sampler == nil && len(cfg.SpanProcessors) == 0:
		if cfg.ShortLived {
			sp, err := store.OpenSpool(ctx, cfg.Store)
			if err == nil {
				tp, err := newSpoolTracerProvider(sp, batch)
				if err != nil {
					_ = sp.Close()
					return nil, nil, err
				}
				tel.StorePath, tel.TracerProvider = sp.Path(), tp
				break
			}
			if !errors.Is(err, store.ErrSpoolUnsupported) {
				return nil, nil, err
			}
		}
		st, err := store.Open(ctx, cfg.Store)
		if err != nil {
			return nil, nil, err
		}
		tp, err := NewTracerProvider(st, batch, true)
		if err != nil {
			_ = st.Close()
			return nil, nil, err
		}
		tel.Store, tel.StorePath, tel.TracerProvider = st, st.Path(), tp
	case kind == ExporterStore:
		exp, err := store.OpenExporter(ctx, cfg.Store)
		if err != nil {
			return nil, nil, err
		}
		tel.Store, tel.StorePath = exp.Store(), exp.Store().Path()
		spanExp = exp
	case kind == ExporterStdout:
		w := cfg.Stdout
		if w == nil {
			w = os.Stdout
		}
		exp, err := stdouttrace.New(stdouttrace.WithWriter(w))
		if err != nil {
			return nil, nil, fmt.Errorf("observe: stdout span exporter: %w", err)
		}
		mexp, err := stdoutmetric.New(stdoutmetric.WithWriter(w))
		if err != nil {
			return nil, nil, fmt.Errorf("observe: stdout metric exporter: %w", err)
		}
		spanExp = exp
		meterOpts = append(meterOpts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp, sdkmetric.WithInterval(interval))))
	case kind == ExporterOTLP:
		exp, err := otlptracehttp.New(ctx, cfg.OTLPTraceOptions...)
		if err != nil {
			return nil, nil, fmt.Errorf("observe: OTLP span exporter (check OTEL_EXPORTER_OTLP_ENDPOINT): %w", err)
		}
		mexp, err := otlpmetrichttp.New(ctx, cfg.OTLPMetricOptions...)
		if err != nil {
			_ = exp.Shutdown(ctx)
			return nil, nil, fmt.Errorf("observe: OTLP metric exporter (check OTEL_EXPORTER_OTLP_ENDPOINT): %w", err)
		}
		spanExp = exp
		meterOpts = append(meterOpts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp, sdkmetric.WithInterval(interval))))
	}
	if spanExp != nil {
		bp, err := NewBatchProcessor(spanExp, batch)
		if err != nil {
			_ = spanExp.Shutdown(ctx)
			return nil, nil, err
		}
		tel.Processor = bp
		tracerOpts = append(tracerOpts, sdktrace.WithSpanProcessor(bp))
	}
	for _, p := range cfg.SpanProcessors {
		tracerOpts = append(tracerOpts, sdktrace.WithSpanProcessor(p))
	}
	for _, r := range cfg.MetricReaders {
		meterOpts = append(meterOpts, sdkmetric.WithReader(r))
	}
	if tel.TracerProvider == nil {
		tel.TracerProvider = sdktrace.NewTracerProvider(tracerOpts...)
	}
	tel.MeterProvider = sdkmetric.NewMeterProvider(meterOpts...)
	tp, mp := tel.TracerProvider.(provider), tel.MeterProvider
	var once sync.Once
	shutdown = func(ctx context.Context) error {
		err := error(nil)
		once.Do(func() {
			// The tracer provider shuts its exporter down, which closes the store.
			err = errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx))
		})
		return err
	}
	return tel, shutdown, nil
}

func resolveExporter(e Exporter) (Exporter, error) {
	if e == "" {
		e = Exporter(strings.ToLower(strings.TrimSpace(os.Getenv(TracesExporterEnv))))
		if e == "console" {
			e = ExporterStdout
		}
		if e == "" {
			e = ExporterStore
		}
	}
	switch e {
	case ExporterStore, ExporterStdout, ExporterOTLP, ExporterNone:
		return e, nil
	}
	return "", fmt.Errorf("%w %q: use store, stdout, otlp or none", ErrUnknownExporter, e)
}

func newResource(ctx context.Context, service string) (*resource.Resource, error) {
	if service == "" {
		service = "loom"
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("observe: build the telemetry resource (check OTEL_RESOURCE_ATTRIBUTES): %w", err)
	}
	return res, nil
}
