package checkpointtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loomwork/loom/checkpoint"
)

// BenchSizes are the state sizes [BenchStep] is run with by loom's stores:
// a small state and one of a long conversation.
var BenchSizes = []int{1 << 10, 64 << 10}

// BenchStep measures one step of a run as the engine takes it: Put of the
// next checkpoint, carrying a state of stateBytes bytes, then Head to read
// it back. It reports the bytes of state written per step.
func BenchStep(b *testing.B, s checkpoint.Store, stateBytes int) {
	ctx := context.Background()
	state := json.RawMessage(fmt.Sprintf(`{"pad":%q}`, strings.Repeat("x", max(stateBytes-10, 0))))
	events := json.RawMessage(`[{"kind":"model_call"},{"kind":"tool_call"}]`)
	meta := map[string]string{"agent": "coder", "session": "s-1"}
	b.SetBytes(int64(len(state)))
	b.ReportAllocs()
	seq := int64(0)
	for b.Loop() {
		seq++
		err := s.Put(ctx, checkpoint.Checkpoint{RunID: "bench", Seq: seq, Kind: "step", Time: at(int(seq)),
			State: state, Events: events, Meta: meta})
		if err != nil {
			b.Fatal(err)
		}
		head, err := s.Head(ctx, "bench")
		if err != nil {
			b.Fatal(err)
		}
		if head.Seq != seq {
			b.Fatalf("head %d after putting %d", head.Seq, seq)
		}
	}
}

// BenchAppend measures appending one turn of turnBytes bytes to a session.
func BenchAppend(b *testing.B, s checkpoint.SessionStore, turnBytes int) {
	ctx := context.Background()
	turn := json.RawMessage(fmt.Sprintf(`{"role":"user","text":%q}`, strings.Repeat("x", max(turnBytes-27, 0))))
	b.SetBytes(int64(len(turn)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if err := s.Append(ctx, "bench", n, turn); err != nil {
			b.Fatal(err)
		}
		n++
	}
}
