// Command loom-jsworker is a dedicated worker binary for the sandbox's
// Isolated executor, for programs that would rather not re-execute
// themselves:
//
//	exec, err := sandbox.NewIsolated(sandbox.WithWorkerCommand("/path/to/loom-jsworker"))
//
// It only serves as a worker: started by hand, it explains itself and exits.
package main

import (
	"fmt"
	"os"

	"github.com/loomwork/loom/sandbox"
)

func main() {
	sandbox.ServeWorkerIfChild()
	fmt.Fprintln(os.Stderr, "loom-jsworker is started by sandbox.NewIsolated(sandbox.WithWorkerCommand(path)); it does nothing on its own.")
	os.Exit(2)
}
