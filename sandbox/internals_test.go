package sandbox

import (
	"github.com/loomwork/loom/sandbox/internal/jsrt"
	"github.com/loomwork/loom/sandbox/internal/worker"
)

// Values of the internal packages the tests bound their waits with.
const (
	killMargin  = worker.KillMargin
	raceEnabled = worker.RaceEnabled
)

func truncateUTF8(s string, n int) string { return jsrt.TruncateUTF8(s, n) }
