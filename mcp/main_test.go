package mcp

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if elicitChild() {
		return
	}
	goleak.VerifyTestMain(m)
}
