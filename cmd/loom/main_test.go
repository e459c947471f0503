package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/observe/viewer"
	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain serves the isolated sandbox's workers when started as one, and
// keeps the tests' trust grants out of the user's config
// directory (XDG_CONFIG_HOME is a temporary folder, for children too) and
// the traces that loom run, serve and resume record in a temporary store
// unless a test names its own ($LOOM_TRACE_DB), never in the user's.
func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild() // the isolated sandbox's workers, the default of the files the tests run
	if os.Getenv(childEnv) == "1" {
		goleak.VerifyTestMain(m)
		return
	}
	dir, err := os.MkdirTemp("", "loom-cmd-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	if os.Getenv("LOOM_TRACE_DB") == "" {
		os.Setenv("LOOM_TRACE_DB", filepath.Join(dir, "traces.db"))
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// trustFile records the user's trust in the commands of the file at path,
// as 'loom trust' does.
func trustFile(t *testing.T, path string) {
	t.Helper()
	var out, errs strings.Builder
	require.Equal(t, 0, runTrust([]string{path}, &out, &errs), errs.String())
}

func TestCommands(t *testing.T) {
	t.Setenv("LOOM_TRACE_DB", "/tmp/loom-test-default.db")
	tests := []struct {
		name         string
		args         []string
		code         int
		stdout, errs string
	}{
		{"no args", nil, 2, "", "Usage:"},
		{"help", []string{"help"}, 0, "loom observe [--port N] [--db PATH]", ""},
		{"--help", []string{"--help"}, 0, "loom --version", ""},
		{"help observe", []string{"help", "observe"}, 0, "default 7893", ""},
		{"observe -h", []string{"observe", "-h"}, 0, "$LOOM_TRACE_DB, else /tmp/loom-test-default.db", ""},
		{"version", []string{"--version"}, 0, "loom ", ""},
		{"unknown", []string{"serv"}, 2, "", `unknown command "serv"`},
		{"help run", []string{"help", "run"}, 0, "Usage: loom run FILE", ""},
		{"help serve", []string{"help", "serve"}, 0, "Usage: loom serve FILE", ""},
		{"bad flag", []string{"observe", "--prot", "1"}, 2, "", "flag provided but not defined: -prot"},
		{"bad port", []string{"observe", "--port", "70000"}, 2, "", "out of range"},
		{"extra arg", []string{"observe", "now"}, 2, "", `unexpected argument "now"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errs)
			require.Equal(t, tc.code, code, "stdout: %s\nstderr: %s", out.String(), errs.String())
			require.Contains(t, out.String(), tc.stdout)
			require.Contains(t, errs.String(), tc.errs)
		})
	}
	var out bytes.Buffer
	run(context.Background(), []string{"version"}, &out, &out)
	require.Regexp(t, `^loom \S+ \(go\S+ \w+/\w+\)\n$`, out.String())
}

func TestObserveServesUntilCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	db := filepath.Join(t.TempDir(), "traces.db")
	var out, errs testkit.SyncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"observe", "--port", "0", "--db", db}, &out, &errs) }()

	re := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/)`)
	var url string
	require.Eventually(t, func() bool {
		m := re.FindStringSubmatch(out.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}, time.Minute, 10*time.Millisecond, "no serving line; stderr: %s", errs.String())
	require.Contains(t, out.String(), db)

	res, err := http.Get(url + "api/info")
	require.NoError(t, err)
	var info struct {
		DB string `json:"db"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&info))
	require.NoError(t, res.Body.Close())
	require.Equal(t, db, info.DB)

	res, err = http.Get(url)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/html"))

	cancel()
	select {
	case code := <-done:
		require.Equal(t, 0, code, errs.String())
	case <-time.After(time.Minute):
		t.Fatal("loom observe did not stop within a minute of cancellation")
	}
}

func TestObservePortInUse(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- viewer.Serve(ctx, viewer.Config{Port: -1, DBPath: filepath.Join(t.TempDir(), "a.db"), Ready: func(u string) { ready <- u }})
	}()
	var url string
	select {
	case url = <-ready:
	case err := <-errc:
		t.Fatal(err)
	}
	port := regexp.MustCompile(`:(\d+)/$`).FindStringSubmatch(url)[1]

	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"observe", "--port", port, "--db", filepath.Join(t.TempDir(), "b.db")}, &out, &errs)
	require.Equal(t, 1, code)
	require.Contains(t, errs.String(), "pick another --port")
	cancel()
	require.NoError(t, <-errc)
}

// childEnv makes the test binary run loom's main, for the signal tests.
const childEnv = "LOOM_TEST_RUN_MAIN"

func init() {
	if os.Getenv(childEnv) == "1" {
		main()
	}
}

func TestObserveSignals(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGTERM, 143, "SIGTERM"}, {syscall.SIGINT, 130, "SIGINT (Ctrl-C)"}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "traces.db")
			cmd := exec.Command(os.Args[0], "observe", "--port", "0", "--db", db)
			cmd.Env = append(os.Environ(), childEnv+"=1")
			var out, errs testkit.SyncBuffer
			cmd.Stdout, cmd.Stderr = &out, &errs
			require.NoError(t, cmd.Start())
			require.Eventually(t, func() bool { return strings.Contains(out.String(), "http://127.0.0.1:") },
				30*time.Second, 10*time.Millisecond, "no serving line; stderr: %s", errs.String())
			require.NoError(t, cmd.Process.Signal(c.sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatal("loom observe did not stop within 30s of the signal")
			}
			require.Equal(t, c.code, cmd.ProcessState.ExitCode(), "stderr: %s", errs.String())
			require.Contains(t, errs.String(), "loom observe: interrupted by "+c.name)
		})
	}
}

// trusted is trustFile of path, returning path.
func trusted(t *testing.T, path string) string {
	t.Helper()
	trustFile(t, path)
	return path
}
