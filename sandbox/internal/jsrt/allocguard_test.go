package jsrt

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWrappedConstructorsKeepInstanceof: the constructors behind Proxies
// (the buffers and typed arrays in process, Date, String) share one
// Symbol.hasInstance, which must answer for the constructor it is called
// on, and only for it.
func TestWrappedConstructorsKeepInstanceof(t *testing.T) {
	e := newTestInProcess(t, Config{Concurrency: 1})
	for _, c := range []struct{ name, code, want string }{
		{"own instances", `[new Uint8Array(2) instanceof Uint8Array, new ArrayBuffer(8) instanceof ArrayBuffer,
			new Float64Array(1) instanceof Float64Array, new Date(0) instanceof Date, new String("s") instanceof String]`,
			`[true,true,true,true,true]`},
		{"other constructors' instances", `[new Int8Array(1) instanceof Uint8Array, new Uint8Array(1) instanceof Int8Array,
			new Date(0) instanceof String, new ArrayBuffer(1) instanceof Uint8Array, "s" instanceof String, ({}) instanceof Date]`,
			`[false,false,false,false,false,false]`},
		{"called on another constructor", `const h = Uint8Array[Symbol.hasInstance];
			[h.call(Int8Array, new Int8Array(1)), h.call(Int8Array, new Uint8Array(1)), h.call(Date, new Date(0)), h.call(Object, new Date(0))]`,
			`[true,false,true,true]`},
		{"subclasses", `class B extends Uint16Array {}; class D extends Date {}; [new B(1) instanceof Uint16Array, new D(0) instanceof Date, new B(1) instanceof B]`,
			`[true,true,true]`},
		{"the prototype's constructor is the global", `[new Uint8Array(1).constructor === Uint8Array, new Date(0).constructor === Date, Uint8Array.prototype.constructor === Uint8Array]`,
			`[true,true,true]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.Run(context.Background(), c.code)
			require.NoError(t, err)
			require.JSONEq(t, c.want, string(res.Value))
		})
	}
}
