//go:build !unix

package spec

// openNonblock is 0 where there are no FIFOs to guard against.
const openNonblock = 0
