// Package userfile says where loom keeps a local database by default: the
// file an environment variable names, else a file in the "loom" folder of
// the user's cache directory (or of the config directory when the system
// has none); the trace, checkpoint and vector stores share this rule. The
// trace and checkpoint stores also open their SQLite files alike
// ([OpenSQLite]).
package userfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Path returns $env when it is set, else name in loom's folder of the
// user's cache (or config) directory. The error, when neither directory is
// known, wraps both lookups' errors.
func Path(env, name string) (string, error) {
	if p := os.Getenv(env); p != "" {
		return p, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		var cerr error
		if dir, cerr = os.UserConfigDir(); cerr != nil {
			return "", fmt.Errorf("%w; %w", err, cerr)
		}
	}
	return filepath.Join(dir, "loom", name), nil
}
