package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// exportPieces are the values and tampering that exportProgram combines.
// Every getter, trap and replaced built-in loops forever: the exporter and
// the error describer must never run them.
var exportPieces = []string{
	`1`, `'s'`, `null`, `undefined`, `2n ** 70n`, `NaN`, `Symbol('d')`, `-0`,
	`({get a() {for(;;){}}, b: 1})`,
	`new Proxy({}, {get() {for(;;){}}, ownKeys() {for(;;){}}, getOwnPropertyDescriptor() {for(;;){}}, getPrototypeOf() {for(;;){}}})`,
	`new Proxy([1], {get() {for(;;){}}})`,
	`new Map([[1, {x: 2}], ['k', [3]]])`,
	`new Set([1, 'two', [3]])`,
	`new Uint8Array([1, 2, 3])`, `new Float64Array([0.5, NaN])`, `new BigInt64Array([5n])`,
	`Object.assign(new Error('m'), {name: 'N'})`,
	`(() => { const e = new TypeError('t'); Object.defineProperty(e, 'message', {get() {for(;;){}}}); Object.defineProperty(e, 'name', {get() {for(;;){}}}); return e })()`,
	`(() => { const r = /a+/g; Object.defineProperty(r, 'source', {get() {for(;;){}}}); return r })()`,
	`new Date(0)`, `function f() {}`, `Promise.resolve(1)`, `new Promise(() => {})`,
	`Object.create(new Proxy({}, {get() {for(;;){}}}))`,
	`(() => { const a = [1, 2]; Object.defineProperty(a, 0, {get() {for(;;){}}}); return a })()`,
	`Object(1)`, `(function () { return arguments })(1, 2)`, `new WeakMap()`,
}

// exportTampering replaces built-ins the exporter might reach for. They
// are applied in this order, so that none breaks a later one's own steps.
var exportTampering = []string{
	`Object.defineProperty(Object.prototype, 'value', {__proto__: null, set(v) {for(;;){}}, get() {for(;;){}}, configurable: true});`,
	`Object.defineProperty(Object.prototype, 'done', {__proto__: null, set(v) {for(;;){}}, get() {for(;;){}}, configurable: true});`,
	`Object.getPrototypeOf(new Map().entries()).next = function () {for(;;){}};`,
	`Map.prototype.entries = Set.prototype.values = function () {for(;;){}};`,
	`Function.prototype.call = Function.prototype.apply = function () {for(;;){}};`,
	`Object.defineProperty(Object.getPrototypeOf(Uint8Array.prototype), 'length', {__proto__: null, get() {for(;;){}}});`,
	`RegExp.prototype.toString = Error.prototype.toString = Object.prototype.toString = function () {for(;;){}};`,
	`Object.defineProperty(Error.prototype, 'stack', {__proto__: null, get() {for(;;){}}});`,
	`Object.defineProperty(Error.prototype, 'name', {__proto__: null, get() {for(;;){}}});`,
	`Object.keys = Object.getOwnPropertyDescriptor = Object.getPrototypeOf = function () {for(;;){}};`,
	`Object.defineProperty(globalThis, 'Map', {__proto__: null, get() {for(;;){}}});`,
}

// exportProgram builds a program from fuzz bytes: a value assembled from
// pieces (nested, shared, cyclic), then tampering with built-ins (after
// the value is built, so the code's own steps never meet it), then the
// value returned or thrown.
func exportProgram(data []byte) (string, bool) {
	var b strings.Builder
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		c := int(data[0])
		data = data[1:]
		return c
	}
	tamper := map[int]bool{}
	for n := next() % 4; n > 0; n-- {
		tamper[next()%len(exportTampering)] = true
	}
	b.WriteString("const v = [];\n")
	for i := 0; len(data) > 0 && i < 16; i++ {
		c := next()
		switch c % 5 {
		case 0, 1, 2:
			fmt.Fprintf(&b, "v.push(%s);\n", exportPieces[next()%len(exportPieces)])
		case 3:
			fmt.Fprintf(&b, "v.push({k: v[%d], m: new Map([['n', v[%d]]])});\n", next()%16, next()%16)
		case 4:
			if next()%4 == 0 {
				b.WriteString("v.push(v);\n") // a cycle
			} else {
				fmt.Fprintf(&b, "v.push([v[%d]]);\n", next()%16)
			}
		}
	}
	for i, t := range exportTampering {
		if tamper[i] {
			b.WriteString(t)
			b.WriteString("\n")
		}
	}
	throw := next()%3 == 0
	if throw {
		b.WriteString("throw v[v.length - 1];")
	} else {
		b.WriteString("v")
	}
	return b.String(), throw
}

// FuzzExport fuzzes the values the exporter and the error describer read
// after the code ran: objects with getters, Proxies and replaced built-ins,
// built from the fuzz input. Whatever the value, the conversion runs none
// of the value's code (every such code loops forever, so a call would end
// in a timeout), and it ends with JSON or an expected kind. CI runs it for
// a fixed number of executions:
//
//	go test ./sandbox -run '^$' -fuzz '^FuzzExport$' -fuzztime 10000x
func FuzzExport(f *testing.F) {
	for i := range exportPieces {
		f.Add([]byte{0, 0, byte(i), 1})
	}
	for i := range exportTampering {
		f.Add([]byte{1, byte(i), 0, byte(i), 3, 1, 2, 0, byte(i + 7), 4, 1, 0})
	}
	f.Add([]byte{3, 0, 1, 4, 0, 9, 0, 11, 3, 0, 1, 4, 0, 0})
	lim := Limits{Timeout: 10 * time.Second}
	e, err := NewInProcess(InProcessConfig{Limits: lim})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte) {
		code, throw := exportProgram(data)
		res, err := e.Run(context.Background(), code)
		require.NotNil(t, res)
		if err == nil {
			require.False(t, throw, "a thrown value must be an error:\n%s", code)
			require.True(t, json.Valid(res.Value), "%q", res.Value)
			return
		}
		var se *Error
		require.True(t, errors.As(err, &se), "%T: %v", err, err)
		switch se.Kind {
		case KindException, KindThrownValue:
			require.True(t, throw, "%v\n%s", err, code)
		case KindCyclicValue, KindOutputTooLarge, KindUnsettledPromise, KindUnreadableValue:
		default:
			t.Fatalf("kind %s: %v\n%s", se.Kind, err, code)
		}
	})
}
