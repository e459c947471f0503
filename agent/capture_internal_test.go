package agent

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/loomwork/loom/internal/telemetry"
	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

// TestCapturedMessagesWorkIsBounded checks that rendering a history a
// hundred times longer allocates no more: only what fits is encoded.
func TestCapturedMessagesWorkIsBounded(t *testing.T) {
	history := func(n int) []model.Message {
		msgs := make([]model.Message, n)
		for i := range msgs {
			msgs[i] = model.UserMessage("message " + strconv.Itoa(i) + " " + strings.Repeat("words ", 15))
		}
		return msgs
	}
	cost := func(msgs []model.Message) (allocs float64, bytes uint64) {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		allocs = testing.AllocsPerRun(20, func() { _ = capturedMessages(msgs, notSystem) })
		runtime.ReadMemStats(&m1)
		return allocs, m1.TotalAlloc - m0.TotalAlloc
	}
	smallAllocs, smallBytes := cost(history(1_000))
	bigAllocs, bigBytes := cost(history(100_000))
	// Linear work would be a hundred times more; other goroutines' noise
	// is far below a factor of two.
	require.Less(t, bigAllocs, 2*smallAllocs, "allocations do not grow with the history")
	require.Less(t, bigBytes, 2*smallBytes, "bytes allocated do not grow with the history")
}

func TestCapturedMessagesNewestTooLongAlone(t *testing.T) {
	huge := strings.Repeat("z", 2*telemetry.MaxCapturedBytes)
	msgs := []model.Message{model.UserMessage("first"), model.AssistantMessage("second"), model.UserMessage(huge)}
	got := capturedMessages(msgs, nil)
	whole := capturedMessages(msgs[2:], nil)
	require.Equal(t, "…[truncated 2 earlier messages] "+whole, got, "the earlier messages are counted, the newest is cut")
	require.Equal(t, telemetry.Truncate(`[{"role":"user","parts":[{"type":"text","content":"`+huge+`"}]}]`), whole, "cut as Truncate cuts")
}
