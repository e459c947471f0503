package temporal_test

import (
	"testing"

	"github.com/loomwork/loom/sandbox"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild() // WorkerSandboxTool's workers
	goleak.VerifyTestMain(m,
		// The test environment leaves the goroutines of a mocked activity
		// delayed on workflow time once the workflow cancelled it.
		goleak.IgnoreAnyFunction("go.temporal.io/sdk/internal.(*testWorkflowEnvironmentImpl).runBeforeMockCallReturns"),
		goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*testWorkflowEnvironmentImpl).ExecuteActivity.func2"),
	)
}
