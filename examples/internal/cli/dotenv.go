package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/joho/godotenv"
)

// DotEnvName is the file of local settings (API keys, MODEL) the examples
// read; .env.local.example beside each example shows its variables.
const DotEnvName = ".env.local"

// DotEnvFiles returns where .env.local is looked for, in order: the
// working directory; sourceDir, the example's sources (so `go run ./examples/X`
// from the repository root finds the file copied beside them); and the
// user config directory's loom folder (as ~/.config/loom/.env.local). A
// variable already in the environment wins over every file, and an earlier
// file wins over a later one.
func DotEnvFiles(sourceDir string) []string {
	var files []string
	if wd, err := os.Getwd(); err == nil {
		files = append(files, filepath.Join(wd, DotEnvName))
	}
	if sourceDir != "" {
		files = append(files, filepath.Join(sourceDir, DotEnvName))
	}
	if dir, err := os.UserConfigDir(); err == nil {
		files = append(files, filepath.Join(dir, "loom", DotEnvName))
	}
	return slices.Compact(files)
}

// loadDotEnv loads each of files that exists into the environment, without
// replacing variables already set.
func loadDotEnv(files []string) error {
	for _, path := range files {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		if err := godotenv.Load(path); err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
	}
	return nil
}
