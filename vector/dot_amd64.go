//go:build amd64 && !purego

package vector

import "golang.org/x/sys/cpu"

// hasAVX2 reports whether the AVX2 and FMA kernels can run; it is read
// once, from the CPU.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dotAVX2 returns the dot product of n float32s at a and b, 32 at a time
// with four FMA accumulators. n must be a multiple of 8.
//
//go:noescape
func dotAVX2(a, b *float32, n int) float32

// dotInt8AVX2 returns the dot product of n int8s at a and b, widened to
// int16 and summed in pairs (VPMADDWD). n must be a multiple of 16.
//
//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

// dot returns the dot product of a and b[:len(a)]: the AVX2 kernel for
// the bulk and Go for the last n%8 elements.
func dot(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	if !hasAVX2 || n < 8 {
		return dotGo(a, b)
	}
	m := n &^ 7
	s := dotAVX2(&a[0], &b[0], m)
	if m < n {
		s += dotGo(a[m:], b[m:])
	}
	return s
}

// dotInt8 returns the dot product of two int8 codes of equal length.
func dotInt8(a, b []int8) int32 {
	n := len(a)
	b = b[:n]
	if !hasAVX2 || n < 16 {
		return dotInt8Go(a, b)
	}
	m := n &^ 15
	s := dotInt8AVX2(&a[0], &b[0], m)
	if m < n {
		s += dotInt8Go(a[m:], b[m:])
	}
	return s
}
