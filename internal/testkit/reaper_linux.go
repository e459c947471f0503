//go:build linux

package testkit

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// reaperEnv makes a test binary that calls [ServeReaperIfChild] a reaper.
const reaperEnv = "LOOM_TEST_REAPER"

// reaperGuard is how long the reaper waits, after the command ended, for
// the processes the command left behind to end: a hang guard, never a
// pause (the reaper returns as soon as none is left). A worker that dies
// with its parent is gone within milliseconds; one that does not, and
// runs a snippet with a long time limit, is still there.
const reaperGuard = 15 * time.Second

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// Reaper runs a command under this test binary as a child subreaper
// (prctl PR_SET_CHILD_SUBREAPER): every process the command leaves behind
// when it exits becomes the reaper's child instead of init's, so the
// reaper can tell whether any outlived the command. The test binary's
// TestMain must call [ServeReaperIfChild] first.
type Reaper struct {
	// Cmd runs the reaper; the command inherits its standard input,
	// output and error, and its environment without the reaper's own
	// variable. Set them (and Env) before Start.
	Cmd     *exec.Cmd
	report  *os.File // the report's read end
	sent    *os.File // its write end, the reaper's; closed here once it started
	lines   chan string
	pid     int
	started bool // by Start, which then waits for it too
}

// Outcome is how a command run under a Reaper ended.
type Outcome struct {
	Code      int            // exit status; -1 when a signal ended it
	Signal    syscall.Signal // the signal that ended it, or 0
	Leftovers []string       // processes alive reaperGuard after it ended, each "PID exe args"
}

// NewReaper returns a Reaper that runs name with args.
func NewReaper(name string, args ...string) *Reaper {
	return &Reaper{Cmd: exec.Command(os.Args[0], append([]string{name}, args...)...)}
}

// Start starts the reaper, which starts the command.
func (r *Reaper) Start() error {
	if err := r.Prepare(); err != nil {
		return err
	}
	r.started = true
	err := r.Cmd.Start()
	r.sent.Close()
	return err
}

// Prepare readies Cmd for a starter other than Start, as an MCP client's
// command transport, which then owns it (starts and waits for it).
func (r *Reaper) Prepare() error {
	rd, wr, err := os.Pipe()
	if err != nil {
		return err
	}
	env := r.Cmd.Env
	if env == nil {
		env = os.Environ()
	}
	r.Cmd.Env = append(env[:len(env):len(env)], reaperEnv+"=1")
	r.Cmd.ExtraFiles = []*os.File{wr}
	r.report, r.sent, r.lines = rd, wr, make(chan string, 64)
	go func() {
		defer close(r.lines)
		sc := bufio.NewScanner(rd)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
	}()
	return nil
}

// PID returns the command's process id, once the reaper has started it.
func (r *Reaper) PID(t testing.TB) int {
	t.Helper()
	if r.pid != 0 {
		return r.pid
	}
	select {
	case l, ok := <-r.lines:
		if rest, found := strings.CutPrefix(l, "pid "); ok && found {
			r.pid, _ = strconv.Atoi(rest)
		}
	case <-time.After(2 * time.Minute):
	}
	r.sent.Close() // the reaper has its own copy: the report ends when it exits
	if r.pid == 0 {
		t.Fatal("the reaper did not start the command")
	}
	return r.pid
}

// Wait reads the reaper's report to its end (the reaper exits
// reaperGuard at most after the command) and returns how the command
// ended and what it left behind (the reaper killed those). It waits for
// Cmd when Start started it.
func (r *Reaper) Wait(t testing.TB) Outcome {
	t.Helper()
	r.PID(t)
	out := Outcome{Code: -2}
	for l := range r.lines {
		switch f := strings.Fields(l); {
		case len(f) == 3 && f[0] == "exit":
			out.Code, _ = strconv.Atoi(f[1])
			n, _ := strconv.Atoi(f[2])
			out.Signal = syscall.Signal(n)
		case len(f) > 1 && f[0] == "leftover":
			out.Leftovers = append(out.Leftovers, strings.TrimPrefix(l, "leftover "))
		}
	}
	var err error
	if r.started {
		err = r.Cmd.Wait()
	}
	r.report.Close()
	if err != nil || out.Code == -2 {
		t.Fatalf("the reaper failed (%v): it reported no exit status", err)
	}
	return out
}

// ServeReaperIfChild makes this process the reaper of a [Reaper] when it
// was started as one: it runs the command, reports its pid, its exit
// status and the processes it left behind, then exits. Otherwise it
// returns at once. Call it first in TestMain.
func ServeReaperIfChild() {
	if os.Getenv(reaperEnv) != "1" {
		return
	}
	syscall.CloseOnExec(3) // the report is the reaper's alone
	os.Exit(serveReaper(os.NewFile(3, "report"), os.Args[1:]))
}

func serveReaper(report *os.File, args []string) int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "reaper: %v\n", err)
		return 125
	}
	if len(args) == 0 {
		return fail(fmt.Errorf("no command"))
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return fail(fmt.Errorf("prctl PR_SET_CHILD_SUBREAPER: %w", e))
	}
	cmd := exec.Command(args[0], args[1:]...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, reaperEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	fmt.Fprintf(report, "pid %d\n", cmd.Process.Pid)
	_ = cmd.Wait()
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	code, sig := ws.ExitStatus(), syscall.Signal(0)
	if ws.Signaled() {
		code, sig = -1, ws.Signal()
	}
	deadline := time.Now().Add(reaperGuard)
	for {
		reapZombies()
		left := Children(os.Getpid())
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				fmt.Fprintf(report, "leftover %d %s\n", pid, describe(pid))
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			time.Sleep(100 * time.Millisecond)
			reapZombies()
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Fprintf(report, "exit %d %d\n", code, int(sig))
	return 0
}

// reapZombies collects every child that has ended.
func reapZombies() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// describe names a process by its executable and arguments.
func describe(pid int) string {
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	args, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(exe + " " + strings.ReplaceAll(string(args), "\x00", " "))
}
