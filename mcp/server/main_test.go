package server

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if serveStdioChild() {
		return
	}
	goleak.VerifyTestMain(m)
}
