package vector

import "math"

// dot returns the dot product of a and b[:len(a)]. It is unrolled by eight
// with eight independent sums, so the additions do not wait on each other
// and the bounds checks are hoisted out of the loop.
func dot(a, b []float32) float32 {
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

// dotInt8 returns the dot product of two int8 codes of equal length.
func dotInt8(a, b []int8) int32 {
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

// normalize scales v to unit length in place. v must not be all zeros.
func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	inv := 1 / math.Sqrt(sum)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}

// quantize writes the int8 code of the unit vector v to dst and returns its
// scale: v[i] ≈ dst[i] * scale, with the largest |v[i]| mapped to 127.
func quantize(dst []int8, v []float32) float32 {
	var m float32
	for _, x := range v {
		m = max(m, x, -x)
	}
	if m == 0 {
		clear(dst)
		return 0
	}
	scale := m / 127
	inv := 1 / scale
	for i, x := range v {
		dst[i] = int8(math.Round(float64(x * inv)))
	}
	return scale
}
