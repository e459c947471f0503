package main

import (
	"testing"

	"github.com/loomwork/loom/sandbox"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild()
	goleak.VerifyTestMain(m)
}
