package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/loomwork/loom/checkpoint/checkpointtest"
)

func BenchmarkStep(b *testing.B) {
	for _, size := range checkpointtest.BenchSizes {
		b.Run(fmt.Sprintf("state=%dKiB", size>>10), func(b *testing.B) {
			s, err := Open(context.Background(), Config{DSN: testDSN(b), Schema: testSchema(b)})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			checkpointtest.BenchStep(b, s, size)
		})
	}
}

func BenchmarkAppend(b *testing.B) {
	s, err := OpenSessions(context.Background(), Config{DSN: testDSN(b), Schema: testSchema(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	checkpointtest.BenchAppend(b, s, 1<<10)
}
