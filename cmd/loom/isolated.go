package main

import (
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/sandbox"
)

// isolatedConfig is the config of the isolated executors loom starts.
// A loom-jsworker binary beside loom is the worker when there is one
// (cli.WorkerBeside): it starts several times faster than loom itself.
// With background, the first worker starts while loom goes on to its
// first model call, and the first snippet waits for it.
func isolatedConfig(background bool) sandbox.IsolatedConfig {
	cfg := sandbox.IsolatedConfig{BackgroundStart: background}
	if w := cli.WorkerBeside(); w != "" {
		cfg.WorkerCommand = []string{w}
	}
	return cfg
}
