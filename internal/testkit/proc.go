package testkit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ProcStat reads a process's state (as "R", "S" or "Z" for a zombie) and
// parent pid from /proc/PID/stat; ok is false when there is no such
// process.
func ProcStat(pid int) (state string, ppid int, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 {
		return "", 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return "", 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	return f[0], ppid, err == nil
}

// CPUTicks returns the CPU time a process has used, user and system, in
// clock ticks (usually 10 ms); 0 when there is no such process.
func CPUTicks(pid int) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 of stat: utime and stime are fields 14 and 15
	if len(f) < 13 {
		return 0
	}
	user, _ := strconv.Atoi(f[11])
	sys, _ := strconv.Atoi(f[12])
	return user + sys
}

// Children returns the pids of pid's running (not zombie) child
// processes, read from /proc.
func Children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, ppid, ok := ProcStat(child); ok && state != "Z" && ppid == pid {
			out = append(out, child)
		}
	}
	return out
}
