package loadtest

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/openai"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// LoadEnv sets the number of concurrent workflows; unset, a quick 50 run
// (also under -race). .ci/reliability.sh runs 1,000 without -race.
const LoadEnv = "LOOM_LOAD_WORKFLOWS"

func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild() // this binary is also the isolated sandbox's worker
	goleak.VerifyTestMain(m)
}

func workflows(t *testing.T) int {
	v := os.Getenv(LoadEnv)
	if v == "" {
		return 50
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "%s=%q: want a number of workflows", LoadEnv, v)
	require.Positive(t, n)
	return n
}

func TestConcurrentWorkflows(t *testing.T) {
	n := workflows(t)
	srv := fakeopenai.New(t, fakeopenai.Coder)
	for _, kind := range []string{"isolated", "inprocess"} {
		t.Run(fmt.Sprintf("%s-%d", kind, n), func(t *testing.T) {
			leaks := goleak.IgnoreCurrent()
			var exec sandbox.Executor
			var err error
			if kind == "isolated" {
				exec, err = sandbox.NewIsolated(sandbox.IsolatedConfig{Concurrency: runtime.GOMAXPROCS(0)})
			} else {
				exec, err = sandbox.NewInProcess(sandbox.InProcessConfig{})
			}
			require.NoError(t, err)
			tool, err := jstool.New(exec, jstool.Config{})
			require.NoError(t, err)
			ce, err := codeexec.New(codeexec.Config{Tool: tool})
			require.NoError(t, err)
			// A bounded pool of connections, as a server process would use.
			transport := &http.Transport{MaxConnsPerHost: 64, MaxIdleConnsPerHost: 64}
			m, err := openai.New("gpt-5.4-mini", model.WithAPIKey("sk-load-0123456789"), model.WithBaseURL(srv.BaseURL()),
				model.WithHTTPClient(&http.Client{Transport: transport}))
			require.NoError(t, err)
			e := engine.New(engine.Config{Model: m})

			var failed atomic.Int64
			var firstErr atomic.Value
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					res, err := e.Invoke(t.Context(), ce, "Calculate 15!")
					if err == nil && res.Text() != "15! = 1307674368000" {
						err = fmt.Errorf("wrong answer %q", res.Text())
					}
					if err != nil {
						failed.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					}
				})
			}
			wg.Wait()
			require.Zero(t, failed.Load(), "first failure: %v", firstErr.Load())
			require.Equal(t, int64(n), e.Stats().Runs)

			require.NoError(t, exec.Close())
			transport.CloseIdleConnections()
			require.Eventually(t, func() bool { return len(exampletest.Children(os.Getpid())) == 0 },
				30*time.Second, 20*time.Millisecond, "sandbox workers outlived Close: %v", exampletest.Children(os.Getpid()))
			require.Eventually(t, func() bool { return goleak.Find(leaks) == nil },
				30*time.Second, 20*time.Millisecond, "goroutines outlived Close: %v", goleak.Find(leaks))
		})
	}
}
