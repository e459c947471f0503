package jstool

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/metric"

	"github.com/loomwork/loom/internal/telemetry"
)

// instruments are the metrics the evaluateJs tool records: loom.sandbox.runs (by
// executor, outcome and error kind) and loom.sandbox.duration, recorded to
// the metrics on the run's ctx (agentrt.WithMetrics).
type instruments struct {
	runs     metric.Int64Counter
	duration metric.Float64Histogram
}

type instrumentsKey struct{}

func buildInstruments(m metric.Meter) (instruments, error) {
	var ins instruments
	var err1, err2 error
	ins.runs, err1 = m.Int64Counter("loom.sandbox.runs", metric.WithDescription("Sandbox runs, by outcome and error kind."))
	ins.duration, err2 = m.Float64Histogram("loom.sandbox.duration", metric.WithUnit("s"), metric.WithDescription("Sandbox run duration."))
	if err := errors.Join(err1, err2); err != nil {
		return ins, fmt.Errorf("jstool: create metrics: %w", err)
	}
	return ins, nil
}

func instrumentsFrom(ctx context.Context) (instruments, bool) {
	ins, ok, _ := telemetry.Instruments(telemetry.MetersFrom(ctx), instrumentsKey{}, buildInstruments)
	return ins, ok
}
