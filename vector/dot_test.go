package vector

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDotKernels checks the kernels in use against plain loops for every
// length up to 80 and a large one, so each unrolled and tail path runs.
func TestDotKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range append(rangeTo(80), 1536, 1537) {
		a, b := make([]float32, n), make([]float32, n)
		qa, qb := make([]int8, n), make([]int8, n)
		var want float64
		var want8 int32
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			qa[i], qb[i] = int8(r.IntN(255)-127), int8(r.IntN(255)-127)
			want += float64(a[i]) * float64(b[i])
			want8 += int32(qa[i]) * int32(qb[i])
		}
		require.InDelta(t, want, dot(a, b), 1e-3*math.Max(1, math.Sqrt(float64(n))), "dot of %d", n)
		require.InDelta(t, want, dotGo(a, b), 1e-3*math.Max(1, math.Sqrt(float64(n))), "dotGo of %d", n)
		require.Equal(t, want8, dotInt8(qa, qb), "dotInt8 of %d", n)
		require.Equal(t, want8, dotInt8Go(qa, qb), "dotInt8Go of %d", n)
	}
	// The extremes of int8 do not overflow.
	x := make([]int8, 4096)
	for i := range x {
		x[i] = -127
	}
	require.Equal(t, int32(4096*127*127), dotInt8(x, x))
}

func rangeTo(n int) []int {
	out := make([]int, n+1)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestQuantize(t *testing.T) {
	v := []float32{1, -0.5, 0.25, 0}
	c := make([]int8, 4)
	s := quantize(c, v, 0.5)
	require.Equal(t, []int8{127, -63, 32, 0}, c, "-63.5 rounds half up")
	require.InDelta(t, 0.5/127, s, 1e-9)
	require.Zero(t, quantize(c, make([]float32, 4), 1))
	require.Equal(t, []int8{0, 0, 0, 0}, c)
	quantize(c, []float32{-1, 1, -0.999, 0.999}, 1)
	require.Equal(t, []int8{-127, 127, -127, 127}, c, "the extremes stay in range")
}
