package jsonquote

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAppend(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		plain    string // without asMarshal
	}{
		{"plain", "hello, world", `"hello, world"`},
		{"empty", "", `""`},
		{"HTML", `<a href="x">&amp;</a>`, `"<a href=\"x\">&amp;</a>"`},
		{"controls", "a\x00b\x1f\b\f\n\r\t\\\"z", `"a\u0000b\u001f\u0008\u000c\n\r\t\\\"z"`},
		{"unicode", "héllo → 世界 🎉", `"héllo → 世界 🎉"`},
		{"line separators", "a\u2028b\u2029c", `"a\u2028b\u2029c"`},
		{"invalid UTF-8", "a\xffb\xc3(c\xed\xa0\x80", `"a\ufffdb\ufffd(c\ufffd\ufffd\ufffd"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.in)
			require.NoError(t, err)
			require.Equal(t, string(want), string(Append(nil, tc.in, true)), "as json.Marshal")
			require.Equal(t, tc.plain, string(Append(nil, tc.in, false)), "plain")
			var back string
			require.NoError(t, json.Unmarshal(Append([]byte{}, tc.in, false), &back), "plain is valid JSON")
		})
	}
}
