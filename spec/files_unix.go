//go:build unix

package spec

import "syscall"

// openNonblock opens a FIFO without waiting for a writer, so that it is
// refused instead of blocking the reader.
const openNonblock = syscall.O_NONBLOCK
