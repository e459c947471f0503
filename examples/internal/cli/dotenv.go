package cli

import "github.com/loomwork/loom/internal/command"

// DotEnvName is the file of local settings (API keys, MODEL) the examples
// read; .env.local.example beside each example shows its variables.
const DotEnvName = command.DotEnvName

// DotEnvFiles returns where .env.local is looked for, in the order every
// loom command uses (command.DotEnvFiles): the working directory;
// sourceDir, the example's sources (so `go run ./examples/X` from the
// repository root finds the file copied beside them); and the user config
// directory's loom folder.
func DotEnvFiles(sourceDir string) []string { return command.DotEnvFiles(sourceDir) }

// loadDotEnv loads each of files that exists into the environment, without
// replacing variables already set.
func loadDotEnv(files []string) error { return command.LoadDotEnv(files) }
