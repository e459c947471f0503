package evals

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
)

// ErrNoCode is returned by ExtractCode when the answer holds no code.
var ErrNoCode = errors.New("evals: the answer holds no code: expected a fenced ```javascript block or a \"code\" field")

var fence = regexp.MustCompile("(?s)```([A-Za-z0-9_+-]*)[ \t]*\r?\n(.*?)\r?\n?```")

// jsFences are the fence tags taken for JavaScript; an untagged fence is
// taken when no tagged one is found.
var jsFences = map[string]bool{"javascript": true, "js": true, "jsx": true, "mjs": true, "node": true, "typescript": false}

// ExtractCode returns the code in a solver's output: the "code" field of an
// object output, else the first ```javascript (or js) fenced block of its
// text (the output as a JSON string, or its "message", "answer" or "text"
// field), else its first untagged fenced block. An `export` keyword before
// a declaration is removed, since the sandbox runs scripts.
func ExtractCode(out json.RawMessage) (string, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(out, &obj) == nil {
		var code string
		if raw, ok := obj["code"]; ok && json.Unmarshal(raw, &code) == nil && strings.TrimSpace(code) != "" {
			return cleanCode(code), nil
		}
	}
	text := AnswerText(out)
	var untagged string
	for _, m := range fence.FindAllStringSubmatch(text, -1) {
		tag := strings.ToLower(m[1])
		if jsFences[tag] && strings.TrimSpace(m[2]) != "" {
			return cleanCode(m[2]), nil
		}
		if tag == "" && untagged == "" && strings.TrimSpace(m[2]) != "" {
			untagged = m[2]
		}
	}
	if untagged != "" {
		return cleanCode(untagged), nil
	}
	return "", ErrNoCode
}

// AnswerText is the text of an agent's output: a JSON string, or the
// "message", "answer", "text" or "output" field of an object (the first
// that is a string), else the output itself.
func AnswerText(out json.RawMessage) string {
	var s string
	if json.Unmarshal(out, &s) == nil {
		return s
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(out, &obj) == nil {
		for _, k := range []string{"message", "answer", "text", "output"} {
			if json.Unmarshal(obj[k], &s) == nil {
				return s
			}
		}
	}
	return string(out)
}

var exportDecl = regexp.MustCompile(`(?m)^(\s*)export\s+(default\s+)?((async\s+)?function|const|let|var|class)\b`)

func cleanCode(code string) string {
	return exportDecl.ReplaceAllString(code, "$1$3")
}
