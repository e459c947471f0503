// Command twocalls is the floor for the one-shot example's wall time: a Go
// program that makes the same two streamed Chat Completions requests as
// examples/workflow-code-execution does for "Calculate 15!" (the question,
// then the tool's result) and prints the answer, with nothing else. The
// one-shot figures in bench/README.md are ratios to it:
//
//	go build -o /tmp/twocalls ./bench/twocalls
//	OPENAI_BASE_URL=http://127.0.0.1:8787/v1 /tmp/twocalls
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
)

func main() {
	base := os.Getenv("OPENAI_BASE_URL")
	if base == "" {
		base = "http://127.0.0.1:8787/v1"
	}
	msgs := []map[string]any{
		{"role": "system", "content": "You write JavaScript and run it with evaluateJs."},
		{"role": "user", "content": "Calculate 15!"},
	}
	tools := []map[string]any{{"type": "function", "function": map[string]any{
		"name": "evaluateJs", "description": "Runs JavaScript.",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"code": map[string]any{"type": "string"}}, "required": []string{"code"}},
	}}}
	args, id, err := call(base, msgs, tools)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	msgs = append(msgs,
		map[string]any{"role": "assistant", "tool_calls": []map[string]any{{"id": id, "type": "function", "function": map[string]any{"name": "evaluateJs", "arguments": args}}}},
		map[string]any{"role": "tool", "tool_call_id": id, "content": `{"result":1307674368000}`})
	text, _, err := call(base, msgs, tools)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(text)
}

// call sends one streamed request and returns the text, or the first tool
// call's arguments and id.
func call(base string, msgs, tools []map[string]any) (string, string, error) {
	body, err := json.Marshal(map[string]any{"model": "gpt-4o-mini", "stream": true, "messages": msgs, "tools": tools})
	if err != nil {
		return "", "", err
	}
	req, err := http.NewRequest(http.MethodPost, base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+os.Getenv("OPENAI_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("status %s", resp.Status)
	}
	var text, toolArgs strings.Builder
	id := ""
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						ID       string `json:"id"`
						Function struct {
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return "", "", err
		}
		for _, c := range chunk.Choices {
			text.WriteString(c.Delta.Content)
			for _, tc := range c.Delta.ToolCalls {
				if tc.ID != "" {
					id = tc.ID
				}
				toolArgs.WriteString(tc.Function.Arguments)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", err
	}
	if id != "" {
		return toolArgs.String(), id, nil
	}
	return text.String(), "", nil
}
