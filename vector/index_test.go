package vector

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIndexBlocks puts, replaces and removes rows across block boundaries
// and checks every row against a map kept beside the index.
func TestIndexBlocks(t *testing.T) {
	const dims = 4
	for _, int8 := range []bool{false, true} {
		x := newIndex(dims, int8, 1)
		r := rand.New(rand.NewPCG(5, 6))
		want := map[string][]float32{}
		unit := func() []float32 {
			v := []float32{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())}
			inv, err := unitScale(ErrInvalidDocument, func() string { return "v" }, v)
			require.NoError(t, err)
			scaleInto(v, v, inv)
			return v
		}
		for i := range 3*blockRows + 7 {
			id := fmt.Sprint(i)
			u := unit()
			x.put(entry{id: id}, u, 1)
			want[id] = u
		}
		for i := 0; i < 3*blockRows; i += 3 {
			id := fmt.Sprint(i)
			x.remove(id)
			delete(want, id)
		}
		for i := 1; i < 3*blockRows; i += 7 {
			id := fmt.Sprint(i)
			if _, ok := want[id]; ok {
				u := unit()
				x.put(entry{id: id}, u, 1)
				want[id] = u
			}
		}
		x.remove("no such id")
		require.Equal(t, len(want), x.len())
		require.Len(t, x.pos, len(want))
		for id, row := range x.pos {
			require.Equal(t, id, x.entries[row].id)
			tol := 1e-6
			if int8 {
				tol = 0.01
			}
			got := x.vector(row)
			for j := range got {
				require.InDelta(t, want[id][j], got[j], tol, "row %d (%s)", row, id)
			}
		}
		// Removing everything frees every block.
		for _, id := range slices.Collect(func(yield func(string) bool) {
			for id := range want {
				if !yield(id) {
					return
				}
			}
		}) {
			x.remove(id)
		}
		require.Zero(t, x.len())
		require.Empty(t, x.vecs)
		require.Empty(t, x.codes)
		require.Empty(t, x.scales)
	}
}
