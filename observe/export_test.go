package observe

import (
	"context"

	"github.com/loomwork/loom/observe/store"
)

// NewDiscardingTracerProvider is loom's tracer provider with a writer that
// drops every part: what its spans cost before the store.
func NewDiscardingTracerProvider() (*TracerProvider, error) {
	nop := func(context.Context) error { return nil }
	return newTracerProvider(BatchConfig{}, func(context.Context, []store.Part) error { return nil }, nop)
}
