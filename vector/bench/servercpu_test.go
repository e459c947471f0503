package bench

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serverPIDEnv names, for each database, a variable that may hold the
// process id of its server on this machine. When it is set, the server
// benchmarks also report the CPU time the server spent per op, read from
// /proc: unlike wall time, it hardly moves when other processes load the
// machine.
var serverPIDEnv = map[string]string{
	"weaviate": "LOOM_BENCH_WEAVIATE_PID",
	"chroma":   "LOOM_BENCH_CHROMA_PID",
	"pgvector": "LOOM_BENCH_PGVECTOR_PID",
}

// clockTick is the unit of /proc/PID/stat's CPU times (USER_HZ), 100 on
// Linux for every architecture Go supports.
const clockTick = 10 * time.Millisecond

// serverCPU reads the CPU time (user and system) the server of db has
// used so far; ok is false when no server process is named or it cannot
// be read.
func serverCPU(tb testing.TB, db string) (time.Duration, bool) {
	pid := os.Getenv(serverPIDEnv[db])
	if pid == "" {
		return 0, false
	}
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		tb.Fatalf("%s=%s: %v", serverPIDEnv[db], pid, err)
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields after it start at utime = field 14.
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		tb.Fatalf("/proc/%s/stat: %d fields after the command", pid, len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime, stime
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			tb.Fatalf("/proc/%s/stat: %v", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, true
}
