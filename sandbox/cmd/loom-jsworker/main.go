// Command loom-jsworker is a dedicated worker binary for the sandbox's
// Isolated executor, for programs that would rather not re-execute
// themselves:
//
//	exec, err := sandbox.NewIsolated(sandbox.IsolatedConfig{WorkerCommand: []string{"/path/to/loom-jsworker"}})
//
// It only serves as a worker: started by hand, it explains itself and exits.
// It links the sandbox's runtime and worker loop, not the package sandbox,
// so that it starts without what only the parent needs (the JSON Schema
// validator of host tool arguments, whose package init compiles
// meta-schemas).
package main

import (
	"fmt"
	"os"

	"github.com/loomwork/loom/sandbox/internal/worker"
)

func main() {
	worker.ServeWorkerIfChild()
	fmt.Fprintln(os.Stderr, "loom-jsworker is started by sandbox.NewIsolated(sandbox.IsolatedConfig{WorkerCommand: ...}); it does nothing on its own.")
	os.Exit(2)
}
