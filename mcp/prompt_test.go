package mcp

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// lines returns a readLine that gives each line in turn, then io.EOF.
func lines(ls ...string) func() (string, error) {
	return func() (string, error) {
		if len(ls) == 0 {
			return "", io.EOF
		}
		l := ls[0]
		ls = ls[1:]
		return l, nil
	}
}

func TestAskTerminal(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"name":{"type":"string","title":"Full name","minLength":2},
		"age":{"type":"integer","minimum":0,"maximum":150},
		"check":{"type":"boolean","description":"Agree to the terms"},
		"color":{"type":"string","enum":["red","green","blue"]},
		"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}],"default":"s"},
		"note":{"type":"string"},
		"pets":{"type":"array","items":{"anyOf":[{"const":"c","title":"Cats"},{"const":"d","title":"Dogs"}]},"minItems":1,"maxItems":1}
	},"required":["name","age","check"]}`)
	e := Elicitation{Tool: "book", Message: "Who is it for?", Schema: schema}
	cases := []struct {
		name    string
		input   []string
		want    ElicitAnswer
		printed []string
	}{
		{
			name:  "accept with retries",
			input: []string{"", "A", "Ada", "old", "200", "36.5", "36", "maybe", "y", "9", "2", "", "", "1,2", "Dogs", "2"},
			want:  ElicitAnswer{Action: "accept", Content: map[string]any{"name": "Ada", "age": int64(36), "check": true, "color": "green", "size": "s", "pets": []string{"d"}}},
			printed: []string{"The MCP tool book asks: Who is it for?", "Full name (string, required): ", "Type at least 2 characters.",
				"Type a number.", "The most allowed is 150.", "Type a whole number.", "Type yes or no.", "Choose a number from 1 to 3.",
				"  2) Large", `size (choose one, default "s"): `, "Choose at most 1.", "Choose a number from 1 to 2.", "check (boolean, required) - Agree to the terms: "},
		},
		{name: "decline", input: []string{"n"}, want: ElicitAnswer{Action: "decline"}},
		{name: "cancel", input: []string{"cancel"}, want: ElicitAnswer{Action: "cancel"}},
		{
			name:    "required is asked again",
			input:   []string{"y", "", "Bo", "1", "no", "red", "l", "a note", "c"},
			want:    ElicitAnswer{Action: "accept", Content: map[string]any{"name": "Bo", "age": int64(1), "check": false, "color": "red", "size": "l", "note": "a note", "pets": []string{"c"}}},
			printed: []string{"This one is required."},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			got, err := AskTerminal(e, lines(c.input...), &out)
			require.NoError(t, err, out.String())
			require.Equal(t, c.want, got)
			for _, p := range c.printed {
				require.Contains(t, out.String(), p)
			}
		})
	}
}

func TestAskTerminalEndOfInput(t *testing.T) {
	_, err := AskTerminal(Elicitation{Message: "m", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`)}, lines("y"), io.Discard)
	require.ErrorIs(t, err, io.EOF)
}

func TestAskTerminalChecksTheWholeSchema(t *testing.T) {
	// What the fields alone do not say (here: a bound on the object) is
	// checked against the schema, and asked again.
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"minProperties":1}`)
	var out strings.Builder
	got, err := AskTerminal(Elicitation{Message: "m", Schema: schema}, lines("y", "", "", "x", ""), &out)
	require.NoError(t, err)
	require.Equal(t, ElicitAnswer{Action: "accept", Content: map[string]any{"a": "x"}}, got)
	require.Contains(t, out.String(), "That answer does not fit what was asked")
}
