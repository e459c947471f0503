package provider

import (
	"bytes"
	"cmp"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxSummary is the longest error summary, in bytes.
const MaxSummary = 200

// titleRE finds an HTML page's title; compiled on first use, since most
// programs never see an HTML error page.
var titleRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`) })

// Summarize returns a short, single-line account of an error body: the
// provider's message when it is JSON ({"error":{"message":…}},
// {"error":"…"}, {"message":…}, or a list of those, as Gemini sends), the
// title of an HTML page, or the first non-blank line of anything else; at
// most [MaxSummary] bytes, with secret redacted.
func Summarize(body []byte, secret string) string {
	s, _ := jsonError(body)
	if s == "" {
		if m := titleRE().FindSubmatch(body); m != nil {
			s = html.UnescapeString(string(m[1]))
		}
	}
	if s == "" {
		for line := range strings.Lines(string(body)) {
			if line = strings.TrimSpace(line); line != "" {
				s = line
				break
			}
		}
	}
	s = strings.Join(strings.Fields(Redact(s, secret)), " ")
	return Clip(s, MaxSummary)
}

// ErrorCode returns the machine-readable reason in a JSON error body: a
// google.rpc.ErrorInfo reason (as "API_KEY_INVALID"), else the error's code
// (as "invalid_api_key"), type or status; "" when there is none.
func ErrorCode(body []byte) string {
	_, code := jsonError(body)
	return Clip(code, 64)
}

// Clip cuts s to at most n bytes on a rune boundary, ending it with "…" when
// it was cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ellipsis = "…"
	cut := n - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// jsonError returns the message and reason code in a JSON error body.
func jsonError(body []byte) (msg, code string) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || (body[0] != '{' && body[0] != '[') {
		return "", ""
	}
	var list []json.RawMessage
	if body[0] == '[' {
		if json.Unmarshal(body, &list) != nil || len(list) == 0 {
			return "", ""
		}
		body = list[0]
	}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", ""
	}
	if len(v.Error) > 0 {
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			return s, ""
		}
		var inner struct {
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
			Type    string          `json:"type"`
			Status  string          `json:"status"`
			Details []struct {
				Reason string `json:"reason"`
			} `json:"details"`
		}
		if json.Unmarshal(v.Error, &inner) == nil {
			var reason, code string
			for _, d := range inner.Details {
				reason = cmp.Or(reason, d.Reason)
			}
			_ = json.Unmarshal(inner.Code, &code) // a number is no reason
			return cmp.Or(inner.Message, inner.Type, inner.Status), cmp.Or(reason, code, inner.Type, inner.Status)
		}
	}
	return v.Message, ""
}
