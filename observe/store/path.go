package store

import (
	"fmt"

	"github.com/loomwork/loom/internal/userfile"
)

// PathEnv is the environment variable that overrides [DefaultPath].
const PathEnv = "LOOM_TRACE_DB"

// DefaultPath returns where loom keeps its traces: $LOOM_TRACE_DB if set,
// else traces.db in the "loom" folder of the user's cache directory (or of
// the config directory when the system has no cache directory).
func DefaultPath() (string, error) {
	p, err := userfile.Path(PathEnv, "traces.db")
	if err != nil {
		return "", fmt.Errorf("store: no place for the trace database (%w): set %s to a file path", err, PathEnv)
	}
	return p, nil
}
