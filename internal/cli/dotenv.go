package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/joho/godotenv"
)

// DotEnvName is the file of local settings (API keys, MODEL).
const DotEnvName = ".env.local"

// DotEnvOrder is the one .env.local search order, as the README and every
// --help state it.
const DotEnvOrder = `Keys and settings come from the environment, then from .env.local files,
looked for in this order: the working folder; the folder of the file run
(loom) or of the example's sources; the user config folder's loom folder
(~/.config/loom/.env.local on Linux). A variable already set wins over
every file, and an earlier file wins over a later one. A loom file never
holds keys.`

// DotEnvFiles returns where .env.local is looked for, in order: the
// working directory, each of dirs (the file's folder, an example's
// sources), and the user config directory's loom folder.
func DotEnvFiles(dirs ...string) []string {
	var files []string
	if wd, err := os.Getwd(); err == nil {
		files = append(files, filepath.Join(wd, DotEnvName))
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		files = append(files, filepath.Join(d, DotEnvName))
	}
	if dir, err := os.UserConfigDir(); err == nil {
		files = append(files, filepath.Join(dir, "loom", DotEnvName))
	}
	return slices.Compact(files)
}

// LoadDotEnv loads each of files that exists into the environment, without
// replacing variables already set.
func LoadDotEnv(files []string) error {
	for _, path := range files {
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if err := godotenv.Load(path); err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
	}
	return nil
}
