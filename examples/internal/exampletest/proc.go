package exampletest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Children returns the pids of pid's running (not zombie) child processes,
// read from /proc.
func Children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, ppid, ok := stat(child); ok && state != "Z" && ppid == pid {
			out = append(out, child)
		}
	}
	return out
}

// Alive reports whether pid is a running (not zombie) process.
func Alive(pid int) bool {
	state, _, ok := stat(pid)
	return ok && state != "Z"
}

// stat reads a process's state and parent pid from /proc/PID/stat.
func stat(pid int) (state string, ppid int, ok bool) {
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
