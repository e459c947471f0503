//go:build !unix

package worker

import "os"

// pollableStdio returns the worker's stdin and stdout as they are.
func pollableStdio() (in, out *os.File) { return os.Stdin, os.Stdout }
