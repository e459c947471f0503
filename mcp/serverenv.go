package mcp

import "runtime"

// serverEnvNames are the variables a stdio server inherits on goos: what
// a program needs to find its interpreter, its home, its temporary folder
// and the terminal's language, as the official TypeScript and Python SDKs
// choose them (plus the temporary folder and the locale), and nothing that
// usually holds a secret.
func serverEnvNames(goos string) []string {
	if goos == "windows" {
		return []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
			"PROCESSOR_ARCHITECTURE", "PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP",
			"USERNAME", "USERPROFILE"}
	}
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE"}
}

// ServerEnv returns the environment a stdio server starts with when its
// Config does not set InheritEnv, read through lookup (os.LookupEnv):
// KEY=value for each of a small set of variables that are set, those a
// program needs to run. Values that start with "()" (exported shell
// functions) are left out, as the official SDKs leave them out.
func ServerEnv(lookup func(string) (string, bool)) []string {
	names := serverEnvNames(runtime.GOOS)
	env := make([]string, 0, len(names))
	for _, k := range names {
		if v, ok := lookup(k); ok && !hasFuncPrefix(v) {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func hasFuncPrefix(v string) bool { return len(v) >= 2 && v[:2] == "()" }
