package telemetry

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		cut  bool
	}{
		{"short", "hello", false},
		{"exact", strings.Repeat("a", MaxCapturedBytes), false},
		{"long", strings.Repeat("a", MaxCapturedBytes+10), true},
		{"long multibyte", strings.Repeat("é", MaxCapturedBytes), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Truncate(tc.in)
			if !tc.cut {
				require.Equal(t, tc.in, got)
				return
			}
			require.Contains(t, got, "…[truncated ")
			require.True(t, strings.HasPrefix(tc.in, got[:strings.Index(got, "…[truncated")]), "cut on a rune boundary")
		})
	}
}

func TestInstrumentsAreMadeOncePerMeters(t *testing.T) {
	m := NewMeters(sdkmetric.NewMeterProvider())
	type key struct{}
	builds := 0
	build := func(mt metric.Meter) (metric.Int64Counter, error) {
		builds++
		return mt.Int64Counter("x")
	}
	for range 3 {
		_, ok, err := Instruments(m, key{}, build)
		require.NoError(t, err)
		require.True(t, ok)
	}
	require.Equal(t, 1, builds)

	_, ok, err := Instruments[metric.Int64Counter](nil, key{}, build)
	require.NoError(t, err)
	require.False(t, ok, "no meters on the ctx: nothing is measured")

	type bad struct{}
	_, _, err = Instruments(m, bad{}, func(metric.Meter) (int, error) { return 0, errors.New("boom") })
	require.ErrorContains(t, err, "boom")

	ctx := WithMeters(context.Background(), m)
	require.Same(t, m, MetersFrom(ctx))
	require.Nil(t, MetersFrom(WithOff(ctx, true)), "off: no meters")
}
