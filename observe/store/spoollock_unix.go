//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package store

import (
	"errors"
	"os"
	"syscall"
)

// spoolSupported reports whether spool files can be used here.
const spoolSupported = true

// tryLock takes an exclusive lock on f without waiting. locked is false
// when another open file holds it: a writer still running, or another
// reader ingesting the file. The kernel releases the lock when its holder
// closes the file or dies, however it dies.
func tryLock(f *os.File) (locked bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}
