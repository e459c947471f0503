package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
)

// playgroundRun is a run as GET /api/runs shows it.
type playgroundRun struct {
	ID      string `json:"id"`
	Agent   string `json:"agent"`
	Status  string `json:"status"`
	Pending []struct {
		ID   string `json:"id"`
		Kind string `json:"kind"`
	} `json:"pending"`
	Output json.RawMessage `json:"output"`
	Error  string          `json:"error"`
}

// servePlayground starts `loom serve file --db db` in a child process and
// returns its base URL (with the token) and the process.
func servePlayground(t *testing.T, file, db string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve", file, "--port", "0", "--db", db)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		re := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32}`)
		for sc.Scan() {
			if u := re.FindString(sc.Text()); u != "" {
				urls <- u
			}
		}
		close(urls)
	}()
	select {
	case u, ok := <-urls:
		require.True(t, ok, "loom serve ended before printing its URL")
		base, token, _ := strings.Cut(u, "/?")
		return base + "/api/%s?" + token, cmd
	case <-time.After(2 * time.Minute):
		t.Fatal("loom serve printed no URL in two minutes")
	}
	return "", nil
}

// checkpointDBs are the checkpoint databases the durable tests run on:
// SQLite (db empty: a file of the test's), and PostgreSQL when
// LOOM_TEST_POSTGRES_DSN names one (required under CI).
func checkpointDBs(t *testing.T) []struct{ kind, db string } {
	t.Helper()
	stores := []struct{ kind, db string }{{"sqlite", ""}}
	if dsn := os.Getenv("LOOM_TEST_POSTGRES_DSN"); dsn != "" {
		stores = append(stores, struct{ kind, db string }{"postgres", dsn})
	} else if os.Getenv("CI") == "true" {
		t.Fatal("LOOM_TEST_POSTGRES_DSN is unset under CI: .ci/postgres.sh must start PostgreSQL")
	}
	return stores
}

// approveElsewhere approves run id, which computes 15!, with loom resume
// in another process, and checks that the playground at api then shows it
// done with the answer.
func approveElsewhere(t *testing.T, api, db, id string) {
	t.Helper()
	code, stdout, stderr := loomProcess(t, "resume", id, "--approve", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "15! = 1307674368000")
	v := waitStatus(t, api, id)
	require.Equal(t, "done", v.Status, "the page shows the run loom resume finished")
	require.Contains(t, string(v.Output), "1307674368000")
}

// servedProject writes content as a project file beside a fresh checkpoint
// database, with traces going to a fresh store, for loom serve and the
// commands that share its database.
func servedProject(t *testing.T, content string) (file, db string) {
	t.Helper()
	t.Setenv("LOOM_TRACE_DB", filepath.Join(t.TempDir(), "traces.db"))
	return writeFile(t, "loom.yaml", content), filepath.Join(t.TempDir(), "runs.db")
}

func apiCall(t *testing.T, api, method, path, body string, v any) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, strings.Replace(api, "%s", path, 1), strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json") // the local-web guard refuses other bodies
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	if v != nil && res.StatusCode < 300 {
		require.NoError(t, json.Unmarshal(b, v), string(b))
	}
	return res.StatusCode
}

// waitStatus polls the playground until run id leaves "running".
func waitStatus(t *testing.T, api, id string) playgroundRun {
	t.Helper()
	var v playgroundRun
	require.Eventually(t, func() bool {
		return apiCall(t, api, "GET", "runs/"+id, "", &v) == http.StatusOK && v.Status != "running"
	}, 2*time.Minute, 20*time.Millisecond)
	return v
}

func loomProcess(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return loomProcessIn(t, "", args...)
}

// loomProcessIn runs loom in a child process with stdin (not a terminal)
// and returns its exit status, stdout and stderr.
func loomProcessIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, out.String(), errOut.String()
}

// TestPlaygroundRunsAreDurable: a run started in the playground waits for
// an approval; the server is killed and started again; the new server
// lists the waiting run, and loom resume --approve (another process)
// continues it to the right answer, which the server then shows. A run
// loom run stopped is listed by the server and approved from the page.
// loom serve and loom resume record the runs in the trace store. On SQLite
// and PostgreSQL.
func TestPlaygroundRunsAreDurable(t *testing.T) {
	for _, st := range checkpointDBs(t) {
		t.Run(st.kind, func(t *testing.T) {
			fakeOpenAI(t)
			traces := filepath.Join(t.TempDir(), "traces.db")
			t.Setenv("LOOM_TRACE_DB", traces)
			db := st.db
			if db == "" {
				db = filepath.Join(t.TempDir(), "runs.db")
			}
			file := writeFile(t, "loom.yaml", coderYAML)

			api, first := servePlayground(t, file, db)
			var started struct{ ID string }
			require.Equal(t, http.StatusCreated, apiCall(t, api, "POST", "runs", `{"agent":"coder","input":{"message":"Calculate 15!"}}`, &started))
			v := waitStatus(t, api, started.ID)
			require.Equal(t, "waiting", v.Status, v.Error)
			require.NoError(t, first.Process.Signal(syscall.SIGKILL))
			_ = first.Wait()

			api, _ = servePlayground(t, file, db)
			var list []playgroundRun
			require.Equal(t, http.StatusOK, apiCall(t, api, "GET", "runs", "", &list))
			require.Len(t, list, 1, "the restarted server lists the waiting run")
			require.Equal(t, started.ID, list[0].ID)
			require.Equal(t, "waiting", list[0].Status)
			require.Len(t, list[0].Pending, 1)
			require.Equal(t, "approval", list[0].Pending[0].Kind)

			approveElsewhere(t, api, db, started.ID)

			// A run loom run stopped shows in the playground, which resumes it.
			code, stdout, stderr := loomProcess(t, "run", file, "-i", "Calculate 15!", "--db", db)
			require.Equal(t, exitWaiting, code, stderr)
			stopped := strings.TrimSpace(stdout)
			require.Equal(t, http.StatusOK, apiCall(t, api, "GET", "runs", "", &list))
			require.Len(t, list, 2)
			require.Equal(t, stopped, list[1].ID)
			require.Equal(t, "waiting", list[1].Status)
			answer, _ := json.Marshal(map[string]any{list[1].Pending[0].ID: map[string]any{"approved": true}})
			require.Equal(t, http.StatusAccepted, apiCall(t, api, "POST", "runs/"+stopped+"/answers", string(answer), nil))
			v = waitStatus(t, api, stopped)
			require.Equal(t, "done", v.Status, v.Error)
			require.Contains(t, string(v.Output), "1307674368000")

			// loom run and loom resume traced their runs (loom serve flushes
			// when it stops).
			ts, err := store.Open(context.Background(), store.Config{Path: traces})
			require.NoError(t, err)
			defer ts.Close()
			page, err := ts.Traces(context.Background(), store.Query{})
			require.NoError(t, err)
			// The server killed with SIGKILL may have exported some spans of
			// its run and not the run's own: such a part has no coder span.
			coder := 0
			for _, tr := range page.Traces {
				if tr.Agent == "coder" {
					coder++
				}
			}
			require.GreaterOrEqual(t, coder, 2, "the runs of loom run and loom resume")
		})
	}
}
