//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// workerPID is the host PID of one of e's live workers.
func workerPID(t *testing.T, e *Isolated) int {
	t.Helper()
	res, err := e.Run(context.Background(), "1+1")
	require.NoError(t, err)
	require.JSONEq(t, "2", string(res.Value))
	pids := e.pool.PIDs()
	if len(pids) == 0 {
		t.Fatal("no live worker")
	}
	return pids[0]
}

func TestWorkerNamespaces(t *testing.T) {
	e, err := NewIsolated(IsolatedConfig{Concurrency: 1})
	require.NoError(t, err)
	defer e.Close()
	ok, why := e.Namespaces()
	if !ok {
		t.Skip("the kernel refused the namespaces here: " + why)
	}
	pid := workerPID(t, e)
	for _, ns := range []string{"user", "net", "mnt", "pid", "ipc", "uts"} {
		mine, err := os.Readlink("/proc/self/ns/" + ns)
		require.NoError(t, err)
		its, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/" + ns)
		require.NoError(t, err)
		require.NotEqual(t, mine, its, "the worker has its own %s namespace", ns)
	}
	entries, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/root/")
	require.NoError(t, err)
	require.Empty(t, entries, "the worker's root is empty")

	off, err := NewIsolated(IsolatedConfig{Concurrency: 1, NoNamespaces: true})
	require.NoError(t, err)
	defer off.Close()
	ok, why = off.Namespaces()
	require.False(t, ok)
	require.Contains(t, why, "WithoutNamespaces")
}

func TestWorkerSeccomp(t *testing.T) {
	e, err := NewIsolated(IsolatedConfig{Concurrency: 1})
	require.NoError(t, err)
	defer e.Close()
	ok, why := e.Seccomp()
	if !ok {
		t.Skip("no system call filter here: " + why)
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(workerPID(t, e)) + "/status")
	require.NoError(t, err)
	require.Contains(t, string(status), "Seccomp:\t2", "the worker runs under a seccomp filter")
	// The filtered worker still runs code that exercises the runtime.
	res, err := e.Run(context.Background(), `const a = []; for (let i = 0; i < 1e5; i++) a.push({i}); await Promise.resolve(a.length)`)
	require.NoError(t, err)
	require.JSONEq(t, "100000", string(res.Value))
}

func TestWorkerClosesInheritedFDs(t *testing.T) {
	// A descriptor without close-on-exec, as a host may inherit one.
	fd, err := syscall.Open("/dev/null", syscall.O_RDONLY, 0)
	require.NoError(t, err)
	defer syscall.Close(fd)
	e, err := NewIsolated(IsolatedConfig{Concurrency: 1, NoNamespaces: true})
	require.NoError(t, err)
	defer e.Close()
	pid := workerPID(t, e)
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, n := range names {
		link, _ := os.Readlink(dir + n.Name())
		require.NotEqual(t, "/dev/null", link, "fd %s of the worker was inherited", n.Name())
		if n, _ := strconv.Atoi(n.Name()); n > 2 {
			require.Contains(t, link, "anon_inode:", "fd %d of the worker is %s", n, link)
		}
	}
}

// TestWorkerDiesWithParent starts a host in a child process, which starts a
// worker and exits without closing it: the worker must die with it.
func TestWorkerDiesWithParent(t *testing.T) {
	if os.Getenv("LOOM_SANDBOX_TEST_ORPHAN") != "" {
		e, err := NewIsolated(IsolatedConfig{Concurrency: 1})
		require.NoError(t, err)
		os.Stdout.WriteString("WORKER " + strconv.Itoa(workerPID(t, e)) + "\n")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerDiesWithParent$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LOOM_SANDBOX_TEST_ORPHAN=1")
	out, err := cmd.Output()
	require.NoError(t, err)
	var pid int
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "WORKER "); ok {
			pid, _ = strconv.Atoi(rest)
		}
	}
	require.NotZero(t, pid, "the child printed its worker's PID: %s", out)
	require.Eventually(t, func() bool { return !alive(pid) }, time.Minute, 20*time.Millisecond, "worker %d outlived its parent", pid)
}

// alive reports whether pid is a running process (not gone, not a zombie).
func alive(pid int) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
