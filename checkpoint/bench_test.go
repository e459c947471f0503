package checkpoint_test

import (
	"fmt"
	"testing"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/checkpointtest"
)

func BenchmarkMemoryStep(b *testing.B) {
	for _, size := range checkpointtest.BenchSizes {
		b.Run(fmt.Sprintf("state=%dKiB", size>>10), func(b *testing.B) {
			checkpointtest.BenchStep(b, checkpoint.NewMemory(), size)
		})
	}
}

func BenchmarkMemoryAppend(b *testing.B) {
	checkpointtest.BenchAppend(b, checkpoint.NewMemorySessions(checkpoint.MemorySessionsConfig{}), 1<<10)
}
