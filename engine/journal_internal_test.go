package engine

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitArray(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		want []string
		bad  bool
	}{
		{name: "empty", raw: `[]`, want: nil},
		{name: "compact", raw: `[{"a":1},{"b":[1,2,{"c":"]"}]}]`, want: []string{`{"a":1}`, `{"b":[1,2,{"c":"]"}]}`}},
		{name: "spaced", raw: " [ {\"a\": 1} ,\n {\"b\": 2} ] ", want: []string{`{"a": 1}`, `{"b": 2}`}},
		{name: "commas and quotes in strings", raw: `[{"s":"a,b\"c,]"},"x,y",3]`, want: []string{`{"s":"a,b\"c,]"}`, `"x,y"`, `3`}},
		{name: "escaped backslash before a quote", raw: `["a\\",{"b":"}"}]`, want: []string{`"a\\"`, `{"b":"}"}`}},
		{name: "null", raw: `null`, bad: true},
		{name: "object", raw: `{"a":1}`, bad: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := splitArray(json.RawMessage(c.raw))
			if c.bad {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			var strs []string
			for _, g := range got {
				require.True(t, json.Valid(g), "%s", g)
				strs = append(strs, string(g))
			}
			require.Equal(t, c.want, strs)
		})
	}
}
