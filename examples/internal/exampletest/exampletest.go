// Package exampletest finds an example's binary and runs it as a user
// would, for the examples' end-to-end tests.
package exampletest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/loomwork/loom/internal/testkit"
)

// Main is a test package's TestMain: it stores in bin the path of the
// executable of the main package in the current directory (see [Binary]),
// runs the tests and checks that no goroutine was left running. It
// returns the exit status for os.Exit.
func Main(m *testing.M, bin *string) int { return MainOf(m, ".", bin) }

// MainOf is [Main] for the main package pkg (a path relative to the test's
// directory, as "../../cmd/loom").
func MainOf(m *testing.M, pkg string, bin *string) int {
	var err error
	if *bin, err = Binary(pkg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}

// Binary returns the path of the executable of the main package pkg,
// built once by the go command: see [testkit.Binary].
func Binary(pkg string) (string, error) { return testkit.Binary(pkg) }

// Result is a finished run.
type Result struct {
	Stdout, Stderr string
	Code           int           // exit status
	Elapsed        time.Duration // wall time
}

// Run runs bin with args in an empty directory, with only PATH, HOME and
// env in its environment, stdin as given (nil: no input), and a 60 s
// limit.
func Run(t testing.TB, bin string, env []string, stdin string, args ...string) Result {
	t.Helper()
	return RunIn(t, t.TempDir(), bin, env, stdin, args...)
}

// RunIn is Run in the directory dir.
func RunIn(t testing.TB, dir, bin string, env []string, stdin string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CACHE_HOME=" + dir}, env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String(), Elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	default:
		t.Fatalf("running %s: %v\nstderr: %s", bin, err, stderr.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %v did not end within 60s\nstdout: %s\nstderr: %s", bin, args, res.Stdout, res.Stderr)
	}
	return res
}

// OpenAIEnv is the environment that points the openai provider at a fake
// server.
func OpenAIEnv(baseURL string) []string {
	return []string{"OPENAI_BASE_URL=" + baseURL, "OPENAI_API_KEY=sk-test-0123456789abcdef"}
}
