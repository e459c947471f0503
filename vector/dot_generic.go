//go:build !amd64 || purego

package vector

// dot returns the dot product of a and b[:len(a)].
func dot(a, b []float32) float32 { return dotGo(a, b) }

// dotInt8 returns the dot product of two int8 codes of equal length.
func dotInt8(a, b []int8) int32 { return dotInt8Go(a, b) }
