package playground_test

import (
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/playground"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
	"net/http/httptest"
)

// twoSandboxes declares two entries that each start an isolated sandbox:
// a pool of worker processes.
const twoSandboxes = `version: loom/v1
model: scripted
entry: one
agents:
  one:
    type: code_execution
    sandbox: {kind: isolated}
  two:
    type: code_execution
    sandbox: {kind: isolated}
`

// TestSavesKeepResourcesFlat saves an unchanged two-sandbox file 100 times
// (10 under the race detector, where each worker process starts many times
// slower; a leak still shows as 40 more processes): each Save must close
// the previous version's sandboxes, so the number of worker processes and
// the live heap end where they started (a resource bound, with room for
// the collector's slack, not a timing threshold).
func TestSavesKeepResourcesFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 400 worker processes")
	}
	// The workers are loom-jsworker, as loom's are, not this test binary,
	// whose start runs the init of every package it links: the same
	// processes, each cheaper to start.
	worker, err := testkit.Binary("github.com/loomwork/loom/sandbox/cmd/loom-jsworker")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "loom.yaml")
	require.NoError(t, os.WriteFile(path, []byte(twoSandboxes), 0o644))
	m := modeltest.New(t)
	pg, err := playground.New(playground.Config{
		Path: path, Engine: engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()}),
		Registry: spec.Registry{
			Models:   func(string) (model.Model, error) { return m, nil },
			Isolated: sandbox.IsolatedConfig{WorkerCommand: []string{worker}},
		},
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pg.Close()) })
	web := httptest.NewServer(pg.Handler())
	t.Cleanup(web.Close)

	save := func() {
		code, body := do(t, http.MethodPut, web.URL+"/api/yaml?token="+pg.Token(), yamlBody(t, twoSandboxes))
		require.Equal(t, http.StatusOK, code, body)
	}
	save() // warm up: the handler's and the sandboxes' one-time allocations
	startProcs, startHeap := children(t), liveHeap()
	require.Positive(t, startProcs, "the sandboxes run worker processes")
	saves := 100
	if raceEnabled {
		saves = 10
	}
	for range saves {
		save()
	}
	endProcs, endHeap := children(t), liveHeap()
	t.Logf("worker processes %d -> %d, live heap %d -> %d KiB", startProcs, endProcs, startHeap>>10, endHeap>>10)
	require.LessOrEqual(t, endProcs, startProcs, "each Save must stop the previous version's workers")
	require.Less(t, endHeap, 2*startHeap+8<<20, "each Save must release the previous version")
}

// children counts this process's child processes that are still alive
// (zombies already reaped by the kernel's view are not counted).
func children(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to count processes with")
	}
	self := strconv.Itoa(os.Getpid())
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // it ended while we looked
		}
		// pid (comm) state ppid …: comm may hold spaces, so split after ")".
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == self && fields[0] != "Z" {
			n++
		}
	}
	return n
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
