package sqlite

import (
	"fmt"

	"github.com/loomwork/loom/internal/userfile"
)

// PathEnv is the environment variable that overrides [DefaultPath].
const PathEnv = "LOOM_CHECKPOINT_DB"

// DefaultPath returns where loom keeps checkpoints and sessions:
// $LOOM_CHECKPOINT_DB if set, else checkpoints.db in the "loom" folder of
// the user's cache directory (or of the config directory when the system
// has no cache directory).
func DefaultPath() (string, error) {
	p, err := userfile.Path(PathEnv, "checkpoints.db")
	if err != nil {
		return "", fmt.Errorf("checkpoint/sqlite: no place for the checkpoint database (%w): set %s to a file path", err, PathEnv)
	}
	return p, nil
}
