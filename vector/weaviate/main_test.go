package weaviate_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(grpcChildEnv) != "" {
		// The child process of TestConformanceRealServerGRPC: its gRPC
		// client's goroutines outlive the tests (the client has no Close).
		os.Exit(m.Run())
	}
	// weaviate-go-client v5.5.0 sets a finalizer on each connection that
	// sends on an unbuffered channel nobody reads unless OAuth refresh
	// runs, so a collected client parks the runtime's finalizer goroutine
	// there. It is the client's, not the store's; see the package doc.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/weaviate/weaviate-go-client/v5/weaviate/connection.finalizer"))
}
