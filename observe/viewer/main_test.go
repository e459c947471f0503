package viewer_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/loomwork/loom/internal/browsertest"
)

// TestMain checks for leaked goroutines; the browser tests share one
// Chromium, each in a tab and browser context of its own.
func TestMain(m *testing.M) { goleak.VerifyTestMain(browsertest.Shared(m)) }
