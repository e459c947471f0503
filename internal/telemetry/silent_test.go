package telemetry_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/loomwork/loom/internal/telemetry"
	"github.com/loomwork/loom/internal/testkit"
)

func TestSilent(t *testing.T) {
	recording := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = recording.Shutdown(context.Background()) })
	spanCtx, span := recording.Tracer("test").Start(context.Background(), "parent")
	defer span.End()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		silent bool
	}{
		{"the global provider was never set", context.Background(), true},
		{"telemetry off", telemetry.WithOff(context.Background(), true), true},
		{"a no-op provider on ctx", telemetry.WithTracerProvider(context.Background(), noop.NewTracerProvider()), true},
		{"a recording provider on ctx", telemetry.WithTracerProvider(context.Background(), recording), false},
		{"a recording provider under telemetry off", telemetry.WithOff(telemetry.WithTracerProvider(context.Background(), recording), true), true},
		{"a recording span on ctx", spanCtx, false},
		{"a recording span on ctx with telemetry off", telemetry.WithOff(spanCtx, true), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.silent, telemetry.Silent(tc.ctx))
		})
	}
}

// TestSilentAfterSetTracerProvider checks, in a child process (it sets
// the global provider), that a program's global provider is traced to.
func TestSilentAfterSetTracerProvider(t *testing.T) {
	if os.Getenv("LOOM_TEST_SILENT_CHILD") == "1" {
		otel.SetTracerProvider(noop.NewTracerProvider())
		if !telemetry.Silent(context.Background()) {
			t.Fatal("a global no-op provider: want silent")
		}
		tp := sdktrace.NewTracerProvider()
		otel.SetTracerProvider(tp)
		if telemetry.Silent(context.Background()) {
			t.Fatal("a global recording provider: want not silent")
		}
		_ = tp.Shutdown(context.Background())
		return
	}
	out, err := testkit.Child("TestSilentAfterSetTracerProvider", "LOOM_TEST_SILENT_CHILD=1").Output()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "PASS")
}
