//go:build linux

package hostile

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/stretchr/testify/require"
)

// served is a loom serve process under a reaper, and the URL and token
// of its playground.
type served struct {
	reaper         *testkit.Reaper
	stdout, stderr *testkit.SyncBuffer
	base, token    string
}

// serve starts loom serve on file with args after it.
func serve(t *testing.T, dir, baseURL, file string, args ...string) *served {
	t.Helper()
	s := &served{stdout: &testkit.SyncBuffer{}, stderr: &testkit.SyncBuffer{}}
	s.reaper = testkit.NewReaper(loom, append([]string{"serve", file, "--port", "0", "--db", filepath.Join(dir, "cp.db")}, args...)...)
	s.reaper.Cmd.Dir, s.reaper.Cmd.Env = dir, env(dir, baseURL)
	s.reaper.Cmd.Stdout, s.reaper.Cmd.Stderr = s.stdout, s.stderr
	require.NoError(t, s.reaper.Start())
	urlRE := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/\?token=([0-9a-f]+)`)
	require.Eventually(t, func() bool {
		m := urlRE.FindStringSubmatch(s.stdout.String())
		if m != nil {
			s.base, s.token = m[1], m[2]
		}
		return m != nil
	}, time.Minute, 20*time.Millisecond, "no playground URL; stderr: %s", s.stderr)
	return s
}

// stop ends the server as a user does, with SIGTERM, and returns how it
// ended.
func (s *served) stop(t *testing.T) ran {
	t.Helper()
	require.NoError(t, syscall.Kill(s.reaper.PID(t), syscall.SIGTERM))
	out := s.reaper.Wait(t)
	return ran{out, s.stdout.String(), s.stderr.String()}
}

// call sends a request to the playground's API with the session token
// and decodes the JSON reply into v (when not nil); it returns the status
// and the body.
func (s *served) call(t *testing.T, method, path, body string, v any) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path+"?token="+s.token, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	if v != nil && res.StatusCode < 300 {
		require.NoError(t, json.Unmarshal(b, v), string(b))
	}
	return res.StatusCode, string(b)
}

// runView is what the playground says of a run.
type runView struct {
	Status string          `json:"status"`
	Output json.RawMessage `json:"output"`
	Error  string          `json:"error"`
}

// runAgent starts a run of agent on input in the playground and waits
// for it to end.
func (s *served) runAgent(t *testing.T, agent string, input any) runView {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"agent": agent, "input": input})
	var started struct{ ID string }
	code, text := s.call(t, http.MethodPost, "/api/runs", string(body), &started)
	require.Equal(t, http.StatusCreated, code, text)
	var view runView
	require.Eventually(t, func() bool {
		view = runView{}
		s.call(t, http.MethodGet, "/api/runs/"+started.ID, "", &view)
		return view.Status != "" && view.Status != "running"
	}, 2*time.Minute, 50*time.Millisecond, "the run did not end")
	return view
}

// The representative hostile snippets, written by the model of a
// code-execution agent run from loom serve's playground, are contained:
// each run ends with an answer that tells what happened and shows the
// next snippet ran cleanly, runs go on in the same server, and the server
// stopped with SIGTERM leaves no worker behind.
func TestLoomServeContainsHostileSnippets(t *testing.T) {
	cases := handful()
	srv := fakeopenai.New(t, twoSnippets(cases))
	dir := t.TempDir()
	file := projectFile(t, dir, coderYAML)
	s := serve(t, dir, srv.BaseURL(), file)
	t.Run("runs", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				view := s.runAgent(t, "coder", map[string]string{"message": c.name})
				require.Equal(t, "done", view.Status, "error: %s", view.Error)
				var answer struct{ Message string }
				require.NoError(t, json.Unmarshal(view.Output, &answer), string(view.Output))
				requireTold(t, c, line(t, answer.Message, "FIRST "), line(t, answer.Message, "SECOND "))
			})
		}
	})
	requireEndedAsARun(t, s.stop(t), 143)
}
