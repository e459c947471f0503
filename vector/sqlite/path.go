package sqlite

import (
	"fmt"

	"github.com/loomwork/loom/internal/userfile"
)

// PathEnv is the environment variable that overrides [DefaultPath].
const PathEnv = "LOOM_VECTOR_DB"

// DefaultPath returns where [Open] keeps vectors when no path
// is given: $LOOM_VECTOR_DB if set, else vectors.db in the "loom" folder
// of the user's cache directory (or of the config directory when the
// system has no cache directory), beside loom's trace database.
func DefaultPath() (string, error) {
	p, err := userfile.Path(PathEnv, "vectors.db")
	if err != nil {
		return "", fmt.Errorf("vector/sqlite: no place for the vector database (%w): set %s or Config.Path", err, PathEnv)
	}
	return p, nil
}
