package recall_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/recall"
)

func ExampleNew() {
	ctx := context.Background()
	emb, _ := vector.NewHashEmbedder(256)
	index, _ := vector.NewMemory(vector.MemoryConfig{Embedder: emb})
	defer index.Close()
	// Add Sessions (checkpoint/sqlite.OpenSessions) to keep the turns
	// across processes.
	mem, _ := recall.New(recall.Config{Store: index, SessionID: "user-1", Recent: 1, Recall: 1})

	turn := func(q, a string) engine.Turn {
		return engine.Turn{Messages: []model.Message{model.UserMessage(q), model.AssistantMessage(a)}}
	}
	_ = mem.Add(ctx, turn("My dog is called Biscuit.", "A fine name."))
	_ = mem.Add(ctx, turn("What is 2+2?", "4."))
	_ = mem.Add(ctx, turn("Recommend a book.", "Dune."))

	// Before the next turn: the last turn, and the earlier one that matches.
	msgs, _ := mem.Messages(ctx, json.RawMessage(`{"message":"What is my dog called?"}`))
	for _, m := range msgs {
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	// Output:
	// user: My dog is called Biscuit.
	// assistant: A fine name.
	// user: Recommend a book.
	// assistant: Dune.
}
