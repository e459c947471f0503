package flow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
)

// Fields decodes a JSON object into its fields; null and empty input give
// no fields. Anything else than an object is an error naming what it was.
func Fields(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]json.RawMessage{}, nil
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("got %s, not a JSON object", Describe(raw))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("not a valid JSON object: %w", err)
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	return m, nil
}

// Describe shortens a JSON value for an error message.
func Describe(raw json.RawMessage) string {
	const max = 80
	if len(raw) > max {
		return string(raw[:max]) + "…"
	}
	return string(raw)
}

// Merge returns the objects' fields merged left to right: on a shared key
// the later object wins.
func Merge(objs ...json.RawMessage) (json.RawMessage, error) {
	acc := map[string]json.RawMessage{}
	for _, o := range objs {
		f, err := Fields(o)
		if err != nil {
			return nil, err
		}
		maps.Copy(acc, f)
	}
	return json.Marshal(acc)
}

// TextOf returns the "message" field of an object when it is a string, or
// the JSON itself.
func TextOf(raw json.RawMessage) string {
	return FieldText(raw, "message")
}

// FieldText returns field key of an object when it is a string, or the
// JSON itself.
func FieldText(raw json.RawMessage, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		var s string
		if v, ok := m[key]; ok && json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// Message returns {"message": text} with extra fields.
func Message(text string, extra map[string]any) json.RawMessage {
	m := map[string]any{"message": text}
	maps.Copy(m, extra)
	b, _ := json.Marshal(m)
	return b
}
