package vector

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkDot(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x, y := make([]float32, 1536), make([]float32, 1536)
	for i := range x {
		x[i], y[i] = r.Float32(), r.Float32()
	}
	var s float32
	b.SetBytes(1536 * 4)
	for b.Loop() {
		s += dot(x, y)
	}
	_ = s
}

func BenchmarkDotInt8(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x, y := make([]int8, 1536), make([]int8, 1536)
	for i := range x {
		x[i], y[i] = int8(r.IntN(255)-127), int8(r.IntN(255)-127)
	}
	var s int32
	b.SetBytes(1536)
	for b.Loop() {
		s += dotInt8(x, y)
	}
	_ = s
}

func BenchmarkScanLarge(b *testing.B) {
	const n, d = 10000, 1536
	r := rand.New(rand.NewPCG(1, 1))
	vecs := make([]float32, n*d)
	for i := range vecs {
		vecs[i] = r.Float32()
	}
	q := vecs[:d]
	b.SetBytes(n * d * 4)
	var s float32
	for b.Loop() {
		for row := range n {
			s += dot(q, vecs[row*d:(row+1)*d])
		}
	}
	_ = s
}

func BenchmarkQuantize(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float32, 1536)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	c := make([]int8, 1536)
	for b.Loop() {
		quantize(c, x, 1)
	}
}
