package telemetry

import (
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/metric"
)

// AIInstruments are the instruments of AI agents' runs: the GenAI client
// metrics and loom.tool.calls.
type AIInstruments struct {
	OperationDuration metric.Float64Histogram
	TokenUsage        metric.Int64Histogram
	ToolCalls         metric.Int64Counter
}

type aiInstrumentsKey struct{}

func buildAIInstruments(m metric.Meter) (AIInstruments, error) {
	var ins AIInstruments
	var errs []error
	var err error
	ins.OperationDuration, err = m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("GenAI operation duration."),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92))
	errs = append(errs, err)
	ins.TokenUsage, err = m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Measures number of input and output tokens used."),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304))
	errs = append(errs, err)
	ins.ToolCalls, err = m.Int64Counter("loom.tool.calls", metric.WithDescription("Tool calls made by AI agents."))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return ins, fmt.Errorf("agent: create metrics: %w", err)
	}
	return ins, nil
}

// AIInstrumentsOf returns the AI instruments made on m, making them the
// first time; a nil m gives ok false.
func AIInstrumentsOf(m *Meters) (ins AIInstruments, ok bool, err error) {
	return Instruments(m, aiInstrumentsKey{}, buildAIInstruments)
}
