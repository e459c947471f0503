package testkit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Binary returns the path of the executable of the main package pkg, as
// the go command builds it for `go run`. The go command keeps such
// executables in its build cache, keyed by everything that went into them,
// so each program is linked once for all the test packages and runs
// that use it, and again only when its code changes. The path is read with
// `go run -exec echo`, which prints it instead of running the program; a
// fresh build runs from a temporary directory the go command removes, so
// then it asks again and gets the cached copy. Tests must not change the
// file.
func Binary(pkg string) (string, error) { return BinaryWith(pkg) }

// BinaryWith is [Binary] with build flags for the go command, as
// "-overlay", "overlay.json" to build a program that is not on disk.
func BinaryWith(pkg string, flags ...string) (string, error) {
	echo, err := exec.LookPath("echo")
	if err != nil {
		return "", fmt.Errorf("testkit: no echo program to read the executable's path with: %w", err)
	}
	for range 3 {
		cmd := exec.Command("go", append(append([]string{"run"}, flags...), "-exec", echo, pkg)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("testkit: go run -exec echo %s: %w\n%s", pkg, err, stderr.Bytes())
		}
		path := strings.TrimSuffix(string(out), "\n")
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			return path, nil
		}
	}
	return "", fmt.Errorf("testkit: the go command did not keep the executable of %s in its build cache (it needs Go 1.24 or later, and a writable GOCACHE)", pkg)
}
