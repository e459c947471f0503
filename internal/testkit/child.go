// Package testkit holds helpers that loom's tests share.
package testkit

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Child returns a command that runs only the test named test of the
// running test binary, in a child process, with env added to this
// process's environment and its stderr passed through. Tests of process
// promises (kill and resume, signals) start one.
func Child(test string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run", "^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	return cmd
}

// LineWith reads r up to the first line that starts with prefix and
// returns it without surrounding space. It fails t when r ends first (the
// child died before printing it) or when no such line comes within two
// minutes.
func LineWith(t testing.TB, r io.Reader, prefix string) string {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), prefix) {
				lines <- strings.TrimSpace(sc.Text())
				return
			}
		}
	}()
	timer := time.NewTimer(2 * time.Minute)
	defer timer.Stop()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatalf("the child ended before printing a line starting with %q", prefix)
		}
		return l
	case <-timer.C:
		t.Fatalf("the child printed no line starting with %q in two minutes", prefix)
	}
	return ""
}
