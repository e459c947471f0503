package sqlite

import (
	"fmt"
	"os"
	"path/filepath"
)

// PathEnv is the environment variable that overrides [DefaultPath].
const PathEnv = "LOOM_CHECKPOINT_DB"

// DefaultPath returns where loom keeps checkpoints and sessions:
// $LOOM_CHECKPOINT_DB if set, else checkpoints.db in the "loom" folder of
// the user's cache directory (or of the config directory when the system
// has no cache directory).
func DefaultPath() (string, error) {
	if p := os.Getenv(PathEnv); p != "" {
		return p, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		var cerr error
		dir, cerr = os.UserConfigDir()
		if cerr != nil {
			return "", fmt.Errorf("checkpoint/sqlite: no place for the checkpoint database (%w; %w): set %s to a file path", err, cerr, PathEnv)
		}
	}
	return filepath.Join(dir, "loom", "checkpoints.db"), nil
}
