package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// hookInstalled records that this binary calls ServeWorkerIfChild, so that
// NewIsolated only re-executes a binary that will serve as a worker rather
// than run its main again. It is the package's only mutable global.
var hookInstalled atomic.Bool

// ServeWorkerIfChild turns the process into a sandbox worker when it was
// started as one by an [Isolated] executor, and returns at once otherwise.
// Call it first thing in main (and in TestMain of tests that use an
// Isolated executor), before flags are parsed or anything else starts:
//
//	func main() {
//		sandbox.ServeWorkerIfChild()
//		// … the program as usual
//	}
//
// The Isolated executor re-executes the program's own binary
// (os.Executable) with LOOM_SANDBOX_WORKER=1 in an otherwise empty
// environment; in that process ServeWorkerIfChild serves runs on
// stdin/stdout and exits when its parent goes away, so the rest of main
// never runs. Use [github.com/loomwork/loom/sandbox.IsolatedConfig.WorkerCommand] to run a
// dedicated worker binary instead.
func ServeWorkerIfChild() {
	hookInstalled.Store(true)
	if os.Getenv(workerEnvKey) != workerEnvValue {
		return
	}
	closeInheritedFDs()
	in, out := pollableStdio()
	os.Exit(serveWorker(in, out, os.Stderr))
}

// serveWorker is the worker's main loop; it returns the exit code.
func serveWorker(in io.Reader, out io.Writer, errOut io.Writer) int {
	var ws workerSettings
	if raw := os.Getenv(workerConfigEnv); raw != "" {
		if err := json.Unmarshal([]byte(raw), &ws); err != nil {
			fmt.Fprintf(errOut, "loom sandbox worker: bad %s: %v\n", workerConfigEnv, err)
			return 2
		}
	}
	checkParent(ws.Parent)
	if err := applyWorkerLimits(ws); err != nil {
		fmt.Fprintf(errOut, "loom sandbox worker: %v\n", err)
		return 2
	}
	if ws.Namespaces {
		if err := confine(ws.Dir); err != nil {
			fmt.Fprintf(errOut, "loom sandbox worker: confine to an empty root: %v\n", err)
			return 2
		}
	}
	w := bufio.NewWriter(out)
	var sendMu sync.Mutex // the run's tool calls write too
	send := func(r reply) bool {
		sendMu.Lock()
		defer sendMu.Unlock()
		line, err := marshalLine(r)
		if err == nil {
			_, err = w.Write(line)
		}
		if err == nil {
			err = w.Flush()
		}
		return err == nil
	}
	ready := reply{Ready: true, PID: os.Getpid(), Version: protocolVersion}
	switch {
	case RaceEnabled:
		ready.Unfiltered = "the race detector's runtime makes other system calls"
	default:
		if err := installSeccomp(); err != nil {
			ready.Unfiltered = err.Error()
		}
	}
	if !send(ready) {
		return 1
	}
	// The parent's first request usually comes a model call later: compile
	// the runtime's own programs meanwhile.
	jsrt.Precompile()
	lines, readErr := readLines(in, maxLine(jsrt.DefaultLimits())*16)
	run := &runner{}
	defer run.close()
	if ws.Expect != nil {
		_, _ = run.executor(*ws.Expect) // sets up the first runtime meanwhile; a failure shows at the first run
	}
	idle := jsrt.HeapBytes()
	for {
		line, ok := <-lines
		if !ok {
			if err := <-readErr; !errors.Is(err, io.EOF) {
				fmt.Fprintf(errOut, "loom sandbox worker: reading a request: %v\n", err)
				return 1
			}
			return 0
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil {
			fmt.Fprintf(errOut, "loom sandbox worker: bad request: %v\n", err)
			return 1
		}
		if req.Answer != nil {
			continue // an answer to a call of a run that has ended
		}
		rep := run.run(req, lines, send)
		if !send(rep) {
			return 1
		}
		if rep.Exiting {
			return 0
		}
		idle = collectAfterGrowth(idle, ws.Memory)
	}
}

// collectAfterGrowth collects the heap, and returns it to the OS, when it
// has grown past the idle worker's by a sixteenth of the memory budget. The
// next run's budget is measured from the heap at its start, so garbage
// left behind by earlier runs would otherwise be lent to it, and its pages
// would count against the worker's OS limit. It returns the new idle heap.
func collectAfterGrowth(idle uint64, memory int64) uint64 {
	if memory <= 0 {
		memory = jsrt.DefaultMemory
	}
	if jsrt.HeapBytes() <= idle+uint64(memory/16) {
		return idle
	}
	debug.FreeOSMemory()
	return jsrt.HeapBytes()
}

// readLines reads lines of at most max bytes from in on a goroutine of
// its own, and closes lines at the end of input, after sending why on
// the returned error channel.
func readLines(in io.Reader, max int) (<-chan []byte, <-chan error) {
	lines, errc := make(chan []byte), make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(in, 1<<16)
		for {
			line, err := readLine(r, max)
			if err != nil {
				errc <- err
				close(lines)
				return
			}
			lines <- line
		}
	}()
	return lines, errc
}

// runner runs a worker's requests. It keeps one in-process executor while
// the requests' settings stay the same (they do for every run of one
// parent executor), so the runtime for the next run is set up while the
// worker waits for it (jsrt's spares), and it keeps RLIMIT_CPU ahead of
// each run without system calls on most runs.
type runner struct {
	key  runnerKey
	exec *jsrt.InProcess
	cpu  cpuLimit
}

// runnerKey is what a runtime's setup depends on: the limits but the time
// limit (given per run), the fixed time and the random seed.
type runnerKey struct {
	limits   jsrt.Limits
	fixed    int64
	hasFixed bool
	seed     uint64
	hasSeed  bool
}

func keyOf(req request) runnerKey {
	k := runnerKey{limits: req.Limits}
	k.limits.Timeout = 0
	if req.FixedTime != nil {
		k.fixed, k.hasFixed = req.FixedTime.UnixNano(), true
	}
	if req.RandSeed != nil {
		k.seed, k.hasSeed = *req.RandSeed, true
	}
	return k
}

// executor returns the executor for req's settings, making it when they
// differ from the last request's.
func (r *runner) executor(req request) (*jsrt.InProcess, error) {
	k := keyOf(req)
	if r.exec != nil && k == r.key {
		return r.exec, nil
	}
	r.close()
	e, err := jsrt.NewInProcess(jsrt.Config{
		Limits: req.Limits, Concurrency: 1, OSMemoryLimit: true,
		FixedTime: req.FixedTime, RandSeed: req.RandSeed,
	})
	if err != nil {
		return nil, err
	}
	r.key, r.exec = k, e
	return e, nil
}

// close closes the executor, if any.
func (r *runner) close() {
	if r.exec != nil {
		_ = r.exec.Close()
		r.exec = nil
	}
}

// run runs one request. A request that offers tools sends its calls with
// send and takes their answers from lines.
func (r *runner) run(req request, lines <-chan []byte, send func(reply) bool) reply {
	rep := reply{ID: req.ID}
	e, err := r.executor(req)
	if err != nil {
		rep.Error = &jsrt.Error{Kind: jsrt.KindInternal, Message: "Internal sandbox error: " + err.Error()}
		return rep
	}
	r.cpu.ensure(req.Limits.Timeout + req.Limits.Grace + cpuMargin)
	var res *jsrt.Result
	if len(req.Tools) > 0 {
		res, err = runWithPipe(e, req, lines, send)
	} else {
		res, err = e.RunFor(context.Background(), req.Code, req.Limits.Timeout, nil)
	}
	if err == nil {
		rep.Result = res
		return rep
	}
	var se *jsrt.Error
	if !errors.As(err, &se) {
		se = &jsrt.Error{Kind: jsrt.KindInternal, Message: "Internal sandbox error: " + err.Error()}
	}
	rep.Error = se
	if res != nil {
		rep.Logs, rep.DurationNs = res.Logs, int64(res.Duration)
	}
	// A run given up at its hard deadline is still running: say so and
	// exit after the reply, so the parent starts a fresh worker.
	waitCtx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if e.Wait(waitCtx) != nil {
		rep.Exiting = true
	}
	return rep
}

// cpuMargin is the CPU time a run may use past its time limit and grace
// before the kernel ends the worker (RLIMIT_CPU): the parent's kill
// normally comes first.
const cpuMargin = 2 * time.Second

// readLine reads one line of at most max bytes, without its newline.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > max {
			return nil, fmt.Errorf("line longer than %d bytes", max)
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// applyWorkerLimits lowers the Go stack limit and sets the OS limits of
// the worker process.
func applyWorkerLimits(ws workerSettings) error {
	if ws.MaxStack > 0 {
		debug.SetMaxStack(ws.MaxStack)
	}
	if ws.Memory > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(ws.Memory)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent(ws.Memory))
	}
	return setProcessLimits(ws)
}

// gcPercent is the worker's GOGC for a per-run memory budget. Every run
// leaves a runtime's worth of garbage (about 250 kB), and with Go's
// default of 100 the worker collected every 4 MB, a tenth of its CPU.
// The worker is single-purpose and its garbage is bounded elsewhere:
// collectAfterGrowth collects once the heap has grown a sixteenth of the
// budget, and the heap watchdog and the OS limits guard each run. So the
// smallest heap goal (4 MB × GOGC/100) is raised to that sixteenth, at
// most 400 (a goal of 16 MB, at the default budget of 256 MB): past it
// collectAfterGrowth, which also returns memory to the OS, would do the
// collecting at a higher cost.
func gcPercent(memory int64) int {
	if memory <= 0 {
		memory = jsrt.DefaultMemory
	}
	const minHeapGoal = 4 << 20 // Go's at GOGC=100
	return int(min(max(memory/16*100/minHeapGoal, 100), 400))
}
