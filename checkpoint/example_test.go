package checkpoint_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/loomwork/loom/checkpoint"
)

// Save a run's checkpoints, lose a race for the next one, and read the
// head back.
func ExampleNewMemory() {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	defer store.Close()

	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, kind := range []string{"start", "step"} {
		err := store.Put(ctx, checkpoint.Checkpoint{
			RunID: "run-42", Seq: int64(i + 1), Kind: kind, Time: start.Add(time.Duration(i) * time.Second),
			State: json.RawMessage(fmt.Sprintf(`{"turn":%d}`, i)),
			Meta:  map[string]string{"agent": "coder"},
		})
		if err != nil {
			log.Fatal(err)
		}
	}

	// A second writer that still believes the head is 1 loses.
	err := store.Put(ctx, checkpoint.Checkpoint{RunID: "run-42", Seq: 2, Time: start})
	fmt.Println("conflict:", errors.Is(err, checkpoint.ErrConflict))

	head, err := store.Head(ctx, "run-42")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(head.Seq, head.Kind, string(head.State))

	runs, err := store.Runs(ctx, checkpoint.RunFilter{Meta: map[string]string{"agent": "coder"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(runs[0].RunID, runs[0].Head, runs[0].Updated.Format(time.RFC3339))
	// Output:
	// conflict: true
	// 2 step {"turn":1}
	// run-42 2 2026-01-02T03:04:06Z
}

// Keep a conversation's turns; a writer that appends after a stale count
// gets ErrConflict.
func ExampleNewMemorySessions() {
	ctx := context.Background()
	sessions := checkpoint.NewMemorySessions(checkpoint.MemorySessionsConfig{})
	defer sessions.Close()

	err := sessions.Append(ctx, "chat-1", 0,
		json.RawMessage(`{"role":"user","text":"hi"}`),
		json.RawMessage(`{"role":"assistant","text":"hello"}`))
	if err != nil {
		log.Fatal(err)
	}
	err = sessions.Append(ctx, "chat-1", 0, json.RawMessage(`{"role":"user","text":"late"}`))
	fmt.Println("conflict:", errors.Is(err, checkpoint.ErrConflict))

	turns, err := sessions.Load(ctx, "chat-1")
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range turns {
		fmt.Println(string(t))
	}
	// Output:
	// conflict: true
	// {"role":"user","text":"hi"}
	// {"role":"assistant","text":"hello"}
}
