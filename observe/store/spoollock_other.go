//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

import "os"

// spoolSupported reports whether spool files can be used here: not
// without file locks, since a reader could not tell a running writer's
// file from a dead one's.
const spoolSupported = false

func tryLock(*os.File) (bool, error) { return false, ErrSpoolUnsupported }
