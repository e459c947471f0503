// Package vectortest is the conformance suite every [vector.Store] passes.
//
// A store's test calls [Run] with a function that opens an empty store:
//
//	func TestConformance(t *testing.T) {
//		vectortest.Run(t, func(t *testing.T, dims int) vector.Store {
//			s, err := mystore.Open(ctx, mystore.Options{Dimensions: dims, Embedder: vectortest.Embedder(dims)})
//			require.NoError(t, err)
//			return s
//		}, vectortest.Options{})
//	}
//
// The suite covers upsert and overwrite (one copy per id), delete, search by
// vector and by text, K and MinScore, every filter operator with its exact
// semantics, filtering before the top-K cut (a filter that matches only
// documents outside the unfiltered top K), dimension mismatches naming both
// sizes, invalid input, concurrent readers and writers, Close, and, when
// [Options.Reopen] is set, a restart that keeps everything.
package vectortest
