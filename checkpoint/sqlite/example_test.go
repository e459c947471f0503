package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/sqlite"
)

// Save checkpoints in a file, then open it again (as another process would)
// and continue the run from its head.
func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loom-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "checkpoints.db")

	store, err := sqlite.Open(ctx, sqlite.Config{Path: path})
	if err != nil {
		log.Fatal(err)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	err = store.Put(ctx, checkpoint.Checkpoint{
		RunID: "run-7", Seq: 1, Kind: "interrupt", Time: start,
		State: json.RawMessage(`{"pending":"approve code"}`),
		Meta:  map[string]string{"agent": "coder"},
	})
	if err != nil {
		log.Fatal(err)
	}
	store.Close()

	again, err := sqlite.Open(ctx, sqlite.Config{Path: path})
	if err != nil {
		log.Fatal(err)
	}
	defer again.Close()
	head, err := again.Head(ctx, "run-7")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(head.Seq, head.Kind, string(head.State))
	err = again.Put(ctx, checkpoint.Checkpoint{RunID: "run-7", Seq: head.Seq + 1, Kind: "end", Time: start.Add(time.Hour)})
	if err != nil {
		log.Fatal(err)
	}
	runs, err := again.Runs(ctx, checkpoint.RunFilter{Limit: 10})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(runs[0].RunID, runs[0].Head, runs[0].Kind)
	// Output:
	// 1 interrupt {"pending":"approve code"}
	// run-7 2 end
}
