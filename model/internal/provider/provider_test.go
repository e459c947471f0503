package provider

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

func TestResultText(t *testing.T) {
	cases := []struct {
		name string
		r    model.ToolResult
		want string
	}{
		{"string", model.ToolResult{Content: json.RawMessage(`"sunny"`)}, "sunny"},
		{"object", model.ToolResult{Content: json.RawMessage(`{"c":21}`)}, `{"c":21}`},
		{"empty", model.ToolResult{}, "null"},
		{"error", model.ToolResult{Content: json.RawMessage(`"no such city"`), IsError: true}, `{"error":"no such city"}`},
		{"error not JSON", model.ToolResult{Content: json.RawMessage(`oops`), IsError: true}, `{"error":"oops"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { require.Equal(t, c.want, ResultText(c.r)) })
	}
}

func TestResultValue(t *testing.T) {
	cases := []struct {
		name string
		r    model.ToolResult
		want map[string]any
	}{
		{"object kept", model.ToolResult{Content: json.RawMessage(`{"c":21}`)}, map[string]any{"c": 21.0}},
		{"string wrapped", model.ToolResult{Content: json.RawMessage(`"sunny"`)}, map[string]any{"output": "sunny"}},
		{"error", model.ToolResult{Content: json.RawMessage(`"bad"`), IsError: true}, map[string]any{"error": "bad"}},
		{"not JSON", model.ToolResult{Content: json.RawMessage(`bad`)}, map[string]any{"output": "bad"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { require.Equal(t, c.want, ResultValue(c.r)) })
	}
}

func TestCheckPairing(t *testing.T) {
	call := model.Message{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCall{ID: "c1", Name: "f"}}}
	cases := []struct {
		name string
		msgs []model.Message
		want string // "" for no error
	}{
		{"paired", []model.Message{call, model.ToolMessage(model.ToolResult{CallID: "c1"})}, ""},
		{"result first", []model.Message{model.ToolMessage(model.ToolResult{CallID: "c1"}), call}, "no earlier assistant message"},
		{"unknown id", []model.Message{call, model.ToolMessage(model.ToolResult{CallID: "c2"})}, `"c2"`},
		{"no result id", []model.Message{call, model.ToolMessage(model.ToolResult{Name: "f"})}, "has no call id"},
		{"no call id", []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.ToolCall{Name: "f"}}}}, "has no id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckPairing(c.msgs)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, model.ErrInvalidRequest)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestImages(t *testing.T) {
	cases := map[string][]byte{
		"image/png":                []byte("\x89PNG\r\n\x1a\nrest"),
		"image/jpeg":               {0xFF, 0xD8, 0xFF, 0xE0},
		"image/gif":                []byte("GIF89a..."),
		"image/webp":               []byte("RIFF\x00\x00\x00\x00WEBPVP8 "),
		"application/octet-stream": []byte("??"),
	}
	for want, data := range cases {
		require.Equal(t, want, ImageMIME(model.Image{Data: data}))
	}
	require.Equal(t, "image/heic", ImageMIME(model.Image{Data: []byte("x"), MIMEType: "image/heic"}), "a given type wins")
	require.Equal(t, "data:image/gif;base64,R0lGODlh", DataURL(model.Image{Data: []byte("GIF89a")}))
	require.ErrorIs(t, CheckImage(model.Image{}), model.ErrInvalidRequest)
	require.NoError(t, CheckImage(model.Image{URL: "https://x/y.png"}))
}

func TestEnvAndRedact(t *testing.T) {
	t.Setenv("LOOM_TEST_A", "")
	t.Setenv("LOOM_TEST_B", " value ")
	v, name := FirstEnv("LOOM_TEST_A", "LOOM_TEST_B")
	require.Equal(t, "value", v)
	require.Equal(t, "LOOM_TEST_B", name)

	require.Equal(t, "bad key [redacted] here", Redact("bad key sk-123456789 here", "sk-123456789"))
	require.Equal(t, "a short key", Redact("a short key", "key"), "short secrets are left alone")
}

func TestStreamErrors(t *testing.T) {
	err := Truncated("p", "the end marker", nil)
	require.ErrorIs(t, err, model.ErrTruncated)
	cause := errors.New("unexpected EOF")
	err = Truncated("p", "the end marker", cause)
	require.ErrorIs(t, err, model.ErrTruncated)
	require.ErrorIs(t, err, cause)
}
