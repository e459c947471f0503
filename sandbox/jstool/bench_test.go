package jstool

import (
	"context"
	"testing"

	"github.com/loomwork/loom/sandbox"
)

// BenchmarkToolFact is one evaluateJs call through the agent layer.
func BenchmarkToolFact(b *testing.B) {
	e, err := sandbox.NewInProcess()
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	tool, err := New(e)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	in := []byte(`{"code":"function f(n){return n<=1?1:n*f(n-1)} f(15)"}`)
	for b.Loop() {
		for _, err := range tool.Run(ctx, in) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
