package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// restartYAML declares a coder that asks before it runs code (coderYAML)
// and the graph of graphYAML, whose human node asks, so one playground
// holds runs of every status.
var restartYAML = coderYAML + func() string {
	_, agents, _ := strings.Cut(graphYAML, "agents:\n")
	return agents
}()

// pageView is what the page shows of a run: GET /api/runs/{id}.
type pageView struct {
	ID      string            `json:"id"`
	Agent   string            `json:"agent"`
	Status  string            `json:"status"`
	Events  []json.RawMessage `json:"events"`
	Pending json.RawMessage   `json:"pending"`
	Output  json.RawMessage   `json:"output"`
	Error   string            `json:"error"`
}

// pageState is everything the page lists: the runs in order, and each
// run's view with its events (the trace).
func pageState(t *testing.T, api string) ([]playgroundRun, map[string]pageView) {
	t.Helper()
	var list []playgroundRun
	require.Equal(t, http.StatusOK, apiCall(t, api, "GET", "runs", "", &list))
	views := map[string]pageView{}
	for _, r := range list {
		var v pageView
		require.Equal(t, http.StatusOK, apiCall(t, api, "GET", "runs/"+r.ID, "", &v))
		views[r.ID] = v
	}
	return list, views
}

// TestPlaygroundRestartListsTheSame: a playground holds a run that
// finished, one that failed (bad input), one that waits for an approval,
// a graph that waits at its human node and one that was approved after a
// later run started. Killed
// and started again on the same file and database, it lists the same runs
// in the same order, each with the same status, questions, output and
// events; the waiting runs are answered after the restart and end once.
func TestPlaygroundRestartListsTheSame(t *testing.T) {
	fakeOpenAI(t)
	file, db := servedProject(t, restartYAML)
	api, first := servePlayground(t, file, db)

	start := func(agent, input string) string {
		var started struct{ ID string }
		require.Equal(t, http.StatusCreated, apiCall(t, api, "POST", "runs", `{"agent":"`+agent+`","input":`+input+`}`, &started))
		return started.ID
	}
	approve := func(api string, v playgroundRun) {
		require.Len(t, v.Pending, 1)
		answer, _ := json.Marshal(map[string]any{v.Pending[0].ID: map[string]any{"approved": true}})
		require.Equal(t, http.StatusAccepted, apiCall(t, api, "POST", "runs/"+v.ID+"/answers", string(answer), nil))
	}
	approvedLater := start("coder", `{"message":"Calculate 15!"}`)
	v := waitStatus(t, api, approvedLater)
	require.Equal(t, "waiting", v.Status, v.Error)
	done := start("coder", `{"message":"hello"}`)
	require.Equal(t, "done", waitStatus(t, api, done).Status)
	approve(api, v)
	require.Equal(t, "done", waitStatus(t, api, approvedLater).Status)
	waiting := start("coder", `{"message":"Calculate 15!"}`)
	require.Equal(t, "waiting", waitStatus(t, api, waiting).Status)
	graphRun := start("review", `{"message":"otters"}`)
	require.Equal(t, "waiting", waitStatus(t, api, graphRun).Status)
	failed := start("coder", `{"message":7}`)
	require.Equal(t, "failed", waitStatus(t, api, failed).Status)

	beforeList, beforeViews := pageState(t, api)
	require.Len(t, beforeList, 5)
	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	_ = first.Wait()

	api, _ = servePlayground(t, file, db)
	afterList, afterViews := pageState(t, api)
	require.Equal(t, beforeList, afterList, "the restarted page lists the same runs, in the same order")
	for id, before := range beforeViews {
		after := afterViews[id]
		require.Equal(t, before.Status, after.Status, id)
		require.JSONEq(t, string(before.Pending), string(after.Pending), id)
		require.Equal(t, string(before.Output), string(after.Output), id)
		require.Equal(t, before.Error, after.Error, id)
		require.Equal(t, len(before.Events), len(after.Events), "run %s: the trace after the restart", id)
		for i := range before.Events {
			require.JSONEq(t, string(before.Events[i]), string(after.Events[i]), "run %s event %d", id, i)
		}
	}

	for _, r := range afterList {
		if r.Status == "waiting" {
			approve(api, r)
			v := waitStatus(t, api, r.ID)
			require.Equal(t, "done", v.Status, v.Error)
		}
	}
}

// TestPlaygroundSeesARunAnsweredElsewhere: a run the playground started
// and that waits for approval is approved by loom resume in another
// process; the page, not restarted, then shows it done with its answer,
// and refuses a second answer instead of failing the run.
func TestPlaygroundSeesARunAnsweredElsewhere(t *testing.T) {
	fakeOpenAI(t)
	file, db := servedProject(t, coderYAML)
	api, _ := servePlayground(t, file, db)
	var started struct{ ID string }
	require.Equal(t, http.StatusCreated, apiCall(t, api, "POST", "runs", `{"agent":"coder","input":{"message":"Calculate 15!"}}`, &started))
	v := waitStatus(t, api, started.ID)
	require.Equal(t, "waiting", v.Status, v.Error)

	approveElsewhere(t, api, db, started.ID)
	var list []playgroundRun
	require.Equal(t, http.StatusOK, apiCall(t, api, "GET", "runs", "", &list))
	require.Len(t, list, 1)
	require.Equal(t, "done", list[0].Status)
	answer, _ := json.Marshal(map[string]any{started.ID + ".1.1?1": map[string]any{"approved": true}})
	require.Equal(t, http.StatusConflict, apiCall(t, api, "POST", "runs/"+started.ID+"/answers", string(answer), nil))
	require.Equal(t, "done", waitStatus(t, api, started.ID).Status)
}
