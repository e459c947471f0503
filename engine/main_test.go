package engine_test

import (
	"testing"

	"github.com/loomwork/loom/sandbox"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild() // the isolated sandbox's workers are this test binary
	goleak.VerifyTestMain(m)
}
