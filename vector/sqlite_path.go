package vector

import (
	"fmt"
	"os"
	"path/filepath"
)

// SQLitePathEnv is the environment variable that overrides
// [DefaultSQLitePath].
const SQLitePathEnv = "LOOM_VECTOR_DB"

// DefaultSQLitePath returns where [OpenSQLite] keeps vectors when no path
// is given: $LOOM_VECTOR_DB if set, else vectors.db in the "loom" folder
// of the user's cache directory (or of the config directory when the
// system has no cache directory), beside loom's trace database.
func DefaultSQLitePath() (string, error) {
	if p := os.Getenv(SQLitePathEnv); p != "" {
		return p, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		var cerr error
		dir, cerr = os.UserConfigDir()
		if cerr != nil {
			return "", fmt.Errorf("vector: no place for the vector database (%w; %w): set %s or SQLiteOptions.Path", err, cerr, SQLitePathEnv)
		}
	}
	return filepath.Join(dir, "loom", "vectors.db"), nil
}
