package codeexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/loomwork/loom/vector"
)

// The metadata of a snippet kept in a knowledge store.
const (
	// SnippetKind is the "kind" metadata of the documents a CodeExecution
	// keeps: Text is the task, "code" the snippet that answered it.
	SnippetKind = "loom.snippet"
	// DefaultRecall is how many earlier snippets are recalled for a task.
	DefaultRecall = 3
)

// recall returns the coder's input for task with the earlier snippets the
// knowledge store holds for similar tasks, or input unchanged when it
// holds none.
func (ce *CodeExecution) recall(ctx context.Context, task string) (string, error) {
	matches, err := ce.cfg.Knowledge.Search(ctx, vector.Query{
		Text: task, K: ce.cfg.Recall, MinScore: ce.cfg.MinRecallScore, Filter: vector.Eq("kind", SnippetKind),
	})
	if err != nil {
		return "", fmt.Errorf("code execution %s: recall earlier snippets: %w", ce.Info().Name, err)
	}
	if len(matches) == 0 {
		return task, nil
	}
	var b strings.Builder
	b.WriteString(task)
	b.WriteString("\n\nSnippets that worked for similar tasks before (adapt them; do not assume they fit as they are):")
	for _, m := range matches {
		code, _ := m.Metadata["code"].(string)
		fmt.Fprintf(&b, "\n\nTask: %s\n```js\n%s\n```", m.Text, strings.TrimRight(code, "\n"))
	}
	return b.String(), nil
}

// snippetInput is the input of the run that keeps a snippet.
type snippetInput struct {
	Task string `json:"task"`
	Code string `json:"code"`
}

// keep stores the snippet that answered task, keyed by both, so the same
// pair is kept once.
func (ce *CodeExecution) keep(ctx context.Context, task, code string) error {
	sum := sha256.Sum256([]byte(task + "\x00" + code))
	doc := vector.Document{
		ID:       "snippet-" + hex.EncodeToString(sum[:12]),
		Text:     task,
		Metadata: map[string]any{"kind": SnippetKind, "code": code},
	}
	if err := ce.cfg.Knowledge.Upsert(ctx, doc); err != nil {
		return fmt.Errorf("code execution %s: keep the snippet: %w", ce.Info().Name, err)
	}
	return nil
}
