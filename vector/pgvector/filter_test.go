package pgvector

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
)

// TestJSONPath checks the SQL/JSON path predicates filters become; the
// conformance suite checks what PostgreSQL makes of them.
func TestJSONPath(t *testing.T) {
	for _, tc := range []struct {
		name   string
		filter *vector.Filter
		expr   string // empty: constant
		always bool
	}{
		{"nil", nil, "", true},
		{"eq string", vector.Eq("lang", "go"), `$."lang" == "go"`, false},
		{"eq int", vector.Eq("n", 3), `$."n" == 3`, false},
		{"eq float", vector.Eq("n", 0.1), `$."n" == 0.1`, false},
		{"eq large", vector.Eq("n", 1e21), `$."n" == 1e+21`, false},
		{"eq negative", vector.Lt("n", -2.5), `$."n" < -2.5`, false},
		{"eq bool", vector.Eq("ok", true), `$."ok" == true`, false},
		{"quotes and escapes", vector.Eq(`we"ird\key`, "a\"b\n<c>"), `$."we\"ird\\key" == "a\"b\n<c>"`, false},
		{"in", vector.In("n", 1, "1"), `($."n" == 1 || $."n" == "1")`, false},
		{"in empty", vector.In("n"), "", false},
		{"and", vector.And(vector.Gte("n", 1), vector.Lte("n", 2)), `($."n" >= 1 && $."n" <= 2)`, false},
		{"and empty", vector.And(), "", true},
		{"or empty", vector.Or(), "", false},
		{"and with never", vector.And(vector.Gt("n", 1), vector.In("x")), "", false},
		{"or with always", vector.Or(vector.Gt("n", 1), vector.And()), "", true},
		{"or drops never", vector.Or(vector.Gt("n", 1), vector.Or()), `$."n" > 1`, false},
		{"nested", vector.Or(vector.And(vector.Eq("a", "x"), vector.Gt("b", 1)), vector.Eq("c", false)),
			`(($."a" == "x" && $."b" > 1) || $."c" == false)`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := jsonPath(tc.filter)
			require.NoError(t, err)
			require.Equal(t, tc.expr, p.expr)
			if tc.expr == "" {
				require.Equal(t, tc.always, p.constant)
			}
		})
	}
}
