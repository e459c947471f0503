package telemetry

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/metric"
)

// Meters is a meter provider's meter for loom and the instruments each
// loom package made on it, made once per Meters.
type Meters struct {
	meter metric.Meter
	mu    sync.Mutex
	sets  map[any]any
}

// NewMeters returns the meters of mp for loom's scope.
func NewMeters(mp metric.MeterProvider) *Meters {
	return &Meters{meter: mp.Meter(Scope), sets: map[any]any{}}
}

type metersKey struct{}

// WithMeters returns ctx whose runs record to m.
func WithMeters(ctx context.Context, m *Meters) context.Context {
	return context.WithValue(ctx, metersKey{}, m)
}

// MetersFrom returns the meters on ctx, or nil (also when telemetry is
// off).
func MetersFrom(ctx context.Context) *Meters {
	if Off(ctx) {
		return nil
	}
	m, _ := ctx.Value(metersKey{}).(*Meters)
	return m
}

// Instruments returns the instrument set of type T that build makes on m's
// meter, making it the first time it is asked for; key identifies the set
// (a package's own unexported type). A nil m gives the zero T and ok false.
func Instruments[T any](m *Meters, key any, build func(metric.Meter) (T, error)) (set T, ok bool, err error) {
	if m == nil {
		return set, false, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, found := m.sets[key]; found {
		return s.(T), true, nil
	}
	set, err = build(m.meter)
	if err != nil {
		return set, false, err
	}
	m.sets[key] = set
	return set, true, nil
}
