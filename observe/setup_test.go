package observe_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// record makes one agent span and one counter increment with tel.
func record(t *testing.T, tel *observe.Telemetry) {
	t.Helper()
	_, span := tel.TracerProvider.Tracer("github.com/loomwork/loom").Start(context.Background(), "invoke_agent coder")
	span.SetAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "coder"))
	span.End()
	counter, err := tel.MeterProvider.Meter("github.com/loomwork/loom").Int64Counter("loom.tool.calls")
	require.NoError(t, err)
	counter.Add(context.Background(), 3)
}

func TestSetupStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	tel, shutdown, err := observe.Setup(ctx, observe.Config{Exporter: observe.ExporterStore, StorePath: path})
	require.NoError(t, err)
	require.Equal(t, observe.ExporterStore, tel.Exporter)
	require.NotNil(t, tel.Store)
	require.Equal(t, path, tel.Store.Path())
	require.IsType(t, &observe.TracerProvider{}, tel.TracerProvider, "the store records loom's own spans")
	require.Nil(t, tel.Processor, "no SDK span processor on the store's path")
	record(t, tel)
	require.NoError(t, shutdown(ctx))
	require.NoError(t, shutdown(ctx), "shutting down twice is harmless")
	require.Zero(t, tel.Dropped())

	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	p, err := s.Traces(ctx, store.Query{})
	require.NoError(t, err)
	require.Len(t, p.Traces, 1, "shutdown flushed the batch")
	require.Equal(t, "coder", p.Traces[0].Agent)
}

// A short-lived program's spans go to the store's spool, not the
// database, and the next program that opens the database shows them.
func TestSetupStoreShortLived(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	tel, shutdown, err := observe.Setup(ctx, observe.Config{Exporter: observe.ExporterStore, StorePath: path, ShortLived: true})
	require.NoError(t, err)
	require.Nil(t, tel.Store, "the database is not opened")
	require.Equal(t, path, tel.StorePath)
	require.IsType(t, &observe.TracerProvider{}, tel.TracerProvider)
	record(t, tel)
	require.NoError(t, shutdown(ctx))
	require.Zero(t, tel.Dropped())
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist, "nothing wrote the database")
	spooled, err := os.ReadDir(store.SpoolDir(path))
	require.NoError(t, err)
	require.Len(t, spooled, 1)

	s, err := store.Open(ctx, store.Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	p, err := s.Traces(ctx, store.Query{})
	require.NoError(t, err)
	require.Len(t, p.Traces, 1, "shutdown spooled the batch and Open stored it")
	require.Equal(t, "coder", p.Traces[0].Agent)
	spooled, err = os.ReadDir(store.SpoolDir(path))
	require.NoError(t, err)
	require.Empty(t, spooled)
}

func TestSetupStdout(t *testing.T) {
	ctx := context.Background()
	t.Setenv("OTEL_SERVICE_NAME", "")
	var buf bytes.Buffer
	tel, shutdown, err := observe.Setup(ctx, observe.Config{Exporter: observe.ExporterStdout, Stdout: &buf, ServiceName: "my-agent"})
	require.NoError(t, err)
	require.Nil(t, tel.Store)
	record(t, tel)
	require.NoError(t, shutdown(ctx))
	out := buf.String()
	require.Contains(t, out, `"Name":"invoke_agent coder"`)
	require.Contains(t, out, `"Value":"my-agent"`, "the service name is on the resource")
	require.Contains(t, out, `"Name":"loom.tool.calls"`, "metrics are flushed at shutdown")
}

func TestSetupOTLP(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	got := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.URL.Path] = r.Header.Get("Content-Type")
		mu.Unlock()
		require.NotEmpty(t, body)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)

	tel, shutdown, err := observe.Setup(ctx, observe.Config{Exporter: observe.ExporterOTLP})
	require.NoError(t, err)
	record(t, tel)
	require.NoError(t, shutdown(ctx))
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, map[string]string{
		"/v1/traces":  "application/x-protobuf",
		"/v1/metrics": "application/x-protobuf",
	}, got)
}

func TestSetupExporterFromEnv(t *testing.T) {
	tests := []struct {
		env  string
		want observe.Exporter
		err  error
	}{
		{"", observe.ExporterStore, nil},
		{"console", observe.ExporterStdout, nil},
		{"NONE", observe.ExporterNone, nil},
		{"store", observe.ExporterStore, nil},
		{"zipkin", "", observe.ErrUnknownExporter},
	}
	for _, tc := range tests {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(observe.TracesExporterEnv, tc.env)
			t.Setenv(store.PathEnv, filepath.Join(t.TempDir(), "env.db"))
			tel, shutdown, err := observe.Setup(context.Background(), observe.Config{Stdout: io.Discard})
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.ErrorContains(t, err, "use store, stdout, otlp or none")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, tel.Exporter)
			record(t, tel)
			require.NoError(t, shutdown(context.Background()))
		})
	}
}

func TestSetupMetricReadersAndNone(t *testing.T) {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	tel, shutdown, err := observe.Setup(ctx, observe.Config{Exporter: observe.ExporterNone, MetricReaders: []sdkmetric.Reader{reader}})
	require.NoError(t, err)
	record(t, tel)
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(ctx, &rm))
	require.Len(t, rm.ScopeMetrics, 1)
	require.Equal(t, "loom.tool.calls", rm.ScopeMetrics[0].Metrics[0].Name)
	sum := rm.ScopeMetrics[0].Metrics[0].Data.(metricdata.Sum[int64])
	require.Equal(t, int64(3), sum.DataPoints[0].Value)
	require.NoError(t, shutdown(ctx))
}

func TestSetupStoreError(t *testing.T) {
	_, _, err := observe.Setup(context.Background(), observe.Config{StorePath: "/proc/no/such/dir/traces.db", Exporter: observe.ExporterStore})
	require.Error(t, err)
	require.ErrorContains(t, err, store.PathEnv)
}
