package sandbox

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	ServeWorkerIfChild()
	goleak.VerifyTestMain(m)
}
