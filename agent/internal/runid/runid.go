// Package runid carries the source of root run ids on a context: package
// agentrt sets it (agentrt.WithIDs) and package agent reads it when a run
// without a parent starts.
package runid

import "context"

type key struct{}

// With returns ctx whose root runs take their ids from next.
func With(ctx context.Context, next func() string) context.Context {
	return context.WithValue(ctx, key{}, next)
}

// From returns the id source on ctx, or nil.
func From(ctx context.Context) func() string {
	next, _ := ctx.Value(key{}).(func() string)
	return next
}
