package jsrt

import (
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/stretchr/testify/require"
)

// TestPrimitiveResults: a primitive result is written from Go exactly as
// the exporter writes it, and one that does not fit gets the exporter's
// error.
func TestPrimitiveResults(t *testing.T) {
	cfg, err := Config{Limits: Limits{ResultBytes: 64}}.WithDefaults()
	require.NoError(t, err)
	for _, code := range []string{
		`1307674368000`, `-0`, `NaN`, `-Infinity`, `0.1 + 0.2`, `1e21`, `2 ** 53 + 2`, `0.7016570306969449`,
		`true`, `false`, `"héllo\n\"q\" \u2028 \ud800"`, `""`, `123n`, `-(2n ** 64n)`,
		`"x".repeat(62)`, `"x".repeat(63)`, `"é".repeat(40)`, `10n ** 70n`,
	} {
		t.Run(code, func(t *testing.T) {
			j := newJob(cfg, code, time.Second)
			res, err := j.execute()
			// The exporter's output for the same value, in a runtime of its own.
			k := newJob(cfg, "", time.Second)
			require.NoError(t, k.setup())
			v, rerr := k.rt.RunString(code)
			require.NoError(t, rerr)
			_, isObj := v.(*goja.Object)
			require.False(t, isObj)
			s, kerr := k.convert(k.kit.export, v, &sink{max: cfg.Limits.ResultBytes, maxDepth: cfg.Limits.ResultDepth})
			if s.err != nil || kerr != nil {
				require.Error(t, err)
				require.Equal(t, KindOutputTooLarge, err.(*Error).Kind)
				return
			}
			require.NoError(t, err)
			require.Equal(t, string(s.buf), string(res.Value))
		})
	}
}

// TestPrimitiveResultUnderTaintedPrototype: a primitive result is read
// without Object.prototype's properties, so a property named like a
// descriptor field there does not make it unreadable; an object result
// still is.
func TestPrimitiveResultUnderTaintedPrototype(t *testing.T) {
	e := newTestInProcess(t, Config{})
	const taint = `Object.defineProperty(Object.prototype, "value", {value: "forged"}); `
	res, err := e.Run(t.Context(), taint+`6 * 7`)
	require.NoError(t, err)
	require.Equal(t, `42`, string(res.Value))
	_, err = e.Run(t.Context(), taint+`({a: 1})`)
	require.ErrorIs(t, err, ErrUnreadableValue)
}
