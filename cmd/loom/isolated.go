package main

import (
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/sandbox"
)

// isolatedOptions are the options of the isolated executors loom starts.
// A loom-jsworker binary beside loom is the worker when there is one
// (cli.WorkerBeside): it starts several times faster than loom itself.
// With background, the first worker starts while loom goes on to its
// first model call, and the first snippet waits for it.
func isolatedOptions(background bool) []sandbox.Option {
	var opts []sandbox.Option
	if background {
		opts = append(opts, sandbox.WithBackgroundStart())
	}
	if w := cli.WorkerBeside(); w != "" {
		opts = append(opts, sandbox.WithWorkerCommand(w))
	}
	return opts
}
