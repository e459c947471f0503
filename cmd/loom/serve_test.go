package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/testkit"
)

func TestServe(t *testing.T) {
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", coderYAML)
	ctx, cancel := context.WithCancel(t.Context())
	var out, errOut testkit.SyncBuffer
	done := make(chan int, 1)
	con := console{in: bufio.NewReader(strings.NewReader("")), getenv: os.Getenv}
	go func() {
		done <- runSpec(ctx, []string{"serve", file, "--port", "0", "--db", filepath.Join(t.TempDir(), "cp.db")}, &out, &errOut, con)
	}()
	urlRE := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32}`)
	require.Eventually(t, func() bool { return urlRE.MatchString(out.String()) }, 30*time.Second, 20*time.Millisecond, "stderr: %s", errOut.String())
	url := urlRE.FindString(out.String())

	get := func(u string) (int, string) {
		res, err := http.Get(u)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(b)
	}
	code, body := get(url)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "loom playground")
	code, _ = get(strings.Split(url, "?")[0])
	require.Equal(t, http.StatusForbidden, code, "no token, no page")

	cancel()
	select {
	case c := <-done:
		require.Equal(t, exitOK, c)
	case <-time.After(30 * time.Second):
		t.Fatal("loom serve did not stop with its context")
	}
}

func TestServeUsage(t *testing.T) {
	require.Equal(t, exitInvalid, call(t, false, "", "serve").code)
	require.Equal(t, exitInvalid, call(t, false, "", "serve", "x.yaml", "--port", "99999").code)
	res := call(t, false, "", "serve", writeFile(t, "loom.yaml", "version: loom/v1\nagents: {a: {type: ai, instrutions: x}}\n"))
	require.Equal(t, exitInvalid, res.code)
	require.Contains(t, res.stderr, "did you mean instructions?")
}

// TestServeAsksBeforeCommands: loom serve opens a file whose commands are
// not trusted, and its page refuses to run it until they are.
func TestServeAsksBeforeCommands(t *testing.T) {
	fakeOpenAI(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	file := markerFile(t, dir, marker, "Be brief.")
	ctx, cancel := context.WithCancel(t.Context())
	var out, errOut testkit.SyncBuffer
	done := make(chan int, 1)
	con := console{in: bufio.NewReader(strings.NewReader("")), getenv: os.Getenv}
	go func() {
		done <- runSpec(ctx, []string{"serve", file, "--port", "0", "--db", filepath.Join(dir, "cp.db")}, &out, &errOut, con)
	}()
	urlRE := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/\?token=([0-9a-f]{32})`)
	require.Eventually(t, func() bool { return urlRE.MatchString(out.String()) }, 30*time.Second, 20*time.Millisecond, "stderr: %s", errOut.String())
	m := urlRE.FindStringSubmatch(out.String())
	res, err := http.Post(m[1]+"/api/runs?token="+m[2], "application/json", strings.NewReader(`{"agent":"assistant","input":{"message":"hi"}}`))
	require.NoError(t, err)
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusConflict, res.StatusCode, string(b))
	require.Contains(t, string(b), `"untrusted":true`)
	require.NoFileExists(t, marker)
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("loom serve did not stop with its context")
	}
}
