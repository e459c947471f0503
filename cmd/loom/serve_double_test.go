package main

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTwoPlaygroundsApproveAtOnce: two playgrounds on one file and
// database both list a run that waits for an approval, and both approve it
// at once. The run advances once, and both pages then show it done with
// its answer: the one whose answer lost does not show it failed.
func TestTwoPlaygroundsApproveAtOnce(t *testing.T) {
	fakeOpenAI(t)
	file, db := servedProject(t, coderYAML)
	apiA, _ := servePlayground(t, file, db)
	apiB, _ := servePlayground(t, file, db)
	for range 3 {
		var started struct{ ID string }
		require.Equal(t, http.StatusCreated, apiCall(t, apiA, "POST", "runs", `{"agent":"coder","input":{"message":"Calculate 15!"}}`, &started))
		v := waitStatus(t, apiA, started.ID)
		require.Equal(t, "waiting", v.Status, v.Error)
		require.Equal(t, "waiting", waitStatus(t, apiB, started.ID).Status, "the other page lists it")
		answer, _ := json.Marshal(map[string]any{v.Pending[0].ID: map[string]any{"approved": true}})
		var wg sync.WaitGroup
		codes := make([]int, 2)
		for i, api := range []string{apiA, apiB} {
			wg.Go(func() { codes[i] = apiCall(t, api, "POST", "runs/"+started.ID+"/answers", string(answer), nil) })
		}
		wg.Wait()
		require.Contains(t, codes, http.StatusAccepted)
		for _, api := range []string{apiA, apiB} {
			// The losing page reads the run from the store: "stopped" (not
			// ended, run elsewhere) until the winner ends it, never failed.
			var v playgroundRun
			require.Eventually(t, func() bool {
				require.Equal(t, http.StatusOK, apiCall(t, api, "GET", "runs/"+started.ID, "", &v))
				require.NotEqual(t, "failed", v.Status, "codes %v: %s", codes, v.Error)
				return v.Status == "done"
			}, 2*time.Minute, 20*time.Millisecond)
			require.Contains(t, string(v.Output), "1307674368000")
		}
	}
}
