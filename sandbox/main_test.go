package sandbox

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(hostileWorkerEnv); mode != "" {
		os.Exit(serveHostileWorker(mode))
	}
	ServeWorkerIfChild()
	goleak.VerifyTestMain(m)
}
