package playground_test

import (
	"testing"

	"github.com/loomwork/loom/sandbox"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild() // the isolated sandboxes of the save test run this binary
	goleak.VerifyTestMain(m)
}
