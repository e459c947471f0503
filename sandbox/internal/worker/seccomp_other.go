//go:build !linux || !(amd64 || arm64)

package worker

import "errors"

func installSeccomp() error {
	return errors.New("system call filters are for Linux on amd64 and arm64 only")
}
