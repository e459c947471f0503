package vector

import "math"

// dotGo returns the dot product of a and b[:len(a)] in portable Go. It is
// unrolled by eight with eight independent sums, so the additions do not
// wait on each other, and the bounds checks are hoisted out of the loop.
func dotGo(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		s4 += x[4] * y[4]
		s5 += x[5] * y[5]
		s6 += x[6] * y[6]
		s7 += x[7] * y[7]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// dotInt8Go returns the dot product of two int8 codes of equal length in
// portable Go.
func dotInt8Go(a, b []int8) int32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= n; i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		s0 += int32(x[0])*int32(y[0]) + int32(x[4])*int32(y[4])
		s1 += int32(x[1])*int32(y[1]) + int32(x[5])*int32(y[5])
		s2 += int32(x[2])*int32(y[2]) + int32(x[6])*int32(y[6])
		s3 += int32(x[3])*int32(y[3]) + int32(x[7])*int32(y[7])
	}
	for ; i < n; i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// quantize writes the int8 code of the vector v*inv (a unit vector) to dst
// and returns its scale: v[i]*inv ≈ dst[i] * scale, with the largest
// element mapped to ±127 and the others rounded to the nearest step.
func quantize(dst []int8, v []float32, inv float32) float32 {
	// The largest |x|, compared as bits: non-negative floats order as
	// their bit patterns do, and an integer max needs no branch.
	var mb uint32
	for _, x := range v {
		mb = max(mb, math.Float32bits(x)&0x7fffffff)
	}
	m := math.Float32frombits(mb)
	if m == 0 {
		clear(dst)
		return 0
	}
	step := 127 / m
	dst = dst[:len(v)]
	for i, x := range v {
		// x*step lies in [-127, 127]; shifted by 128.5 it is positive, so
		// the conversion's truncation rounds to the nearest step (halves
		// up) without a branch.
		dst[i] = int8(int32(x*step+128.5) - 128)
	}
	return m * inv / 127
}
