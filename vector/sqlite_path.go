package vector

import (
	"fmt"

	"github.com/loomwork/loom/internal/userfile"
)

// SQLitePathEnv is the environment variable that overrides
// [DefaultSQLitePath].
const SQLitePathEnv = "LOOM_VECTOR_DB"

// DefaultSQLitePath returns where [OpenSQLite] keeps vectors when no path
// is given: $LOOM_VECTOR_DB if set, else vectors.db in the "loom" folder
// of the user's cache directory (or of the config directory when the
// system has no cache directory), beside loom's trace database.
func DefaultSQLitePath() (string, error) {
	p, err := userfile.Path(SQLitePathEnv, "vectors.db")
	if err != nil {
		return "", fmt.Errorf("vector: no place for the vector database (%w): set %s or SQLiteOptions.Path", err, SQLitePathEnv)
	}
	return p, nil
}
