package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// boundaryCase is code that attacks the places where the host reads
// sandbox values after the code ran (issue classes 2, 3, 4, 5 and 8).
type boundaryCase struct {
	class int
	name  string
	code  string
	// want is the sentinel the error must match; nil means success with
	// value wantValue when set.
	want      error
	wantValue string
	// notText must not appear in the error message or the value.
	notText string
	// maxMessage bounds the error message's length, when set.
	maxMessage int
	// only names the one executor the case runs on (a worker leaves huge
	// buffers to its OS memory limit: hostile_test.go has those cases).
	only string
}

func boundaryCases() []boundaryCase {
	hang := "{for(;;){}}"
	return []boundaryCase{
		// Class 2: the host's reads run no code of the value.
		{class: 2, name: "Error with looping name and message getters", code: `const e = new Error('x'); Object.defineProperty(e, 'name', {get()` + hang + `}); Object.defineProperty(e, 'message', {get()` + hang + `}); throw e`, want: ErrException},
		{class: 2, name: "rejected Error with a forged stack", code: `const e = new Error('x'); e.stack = 'Error: x\n    at forged (code.js:99:1)'; await Promise.reject(e)`, want: ErrException, notText: "forged"},
		{class: 2, name: "thrown Proxy of an Error with looping traps", code: `throw new Proxy(new Error('x'), {getPrototypeOf()` + hang + `, get()` + hang + `, getOwnPropertyDescriptor()` + hang + `})`, want: ErrThrownValue},
		{class: 2, name: "thrown GoError look-alike with a looping value getter", code: `throw Object.setPrototypeOf({get value()` + hang + `}, GoError.prototype)`, want: ErrThrownValue},
		{class: 2, name: "value and done setters on Object.prototype", code: `const m = new Map([[1, 2]]), s = new Set([3]); Object.defineProperty(Object.prototype, 'done', {set(v){}, get(){return true}}); Object.defineProperty(Object.prototype, 'value', {set(v)` + hang + `, get()` + hang + `}); [{a: 1}, m, s]`, want: ErrUnreadableValue},
		{class: 2, name: "read-only value on Object.prototype", code: `Object.defineProperty(Object.prototype, 'value', {value: 'forged'}); ({a: 1})`, want: ErrUnreadableValue, notText: "forged"},
		{class: 2, name: "thrown with a get accessor on Object.prototype", code: `Object.defineProperty(Object.prototype, 'get', {get()` + hang + `}); throw new Error('x')`, want: ErrUnreadableValue},
		{class: 2, name: "replaced Map and Set iterators", code: `Map.prototype.entries = function*(){}; Set.prototype.values = function*(){}; Object.getPrototypeOf(new Map().entries()).next = () => ({done: true}); [new Map([['k', 'v']]), new Set([1, 2])]`, wantValue: `[{"$map":[["k","v"]]},{"$set":[1,2]}]`},
		{class: 2, name: "a looping globalThis.Map getter", code: `const m = new Map([[1, 2]]); Object.defineProperty(globalThis, 'Map', {get()` + hang + `}); m`, wantValue: `{"$map":[[1,2]]}`},
		{class: 2, name: "replaced Function.prototype.call", code: `const m = new Map([[1, 2]]); Function.prototype.call = function()` + hang + `; Function.prototype.apply = Function.prototype.call; [m, new Uint8Array([1, 2])]`, wantValue: `[{"$map":[[1,2]]},[1,2]]`},
		{class: 2, name: "typed array length getter", code: `Object.defineProperty(Object.getPrototypeOf(Uint8Array.prototype), 'length', {get(){return 1e9}}); new Uint8Array([1, 2])`, wantValue: `[1,2]`},
		{class: 2, name: "RegExp toString and source getters", code: `const r = /a+/g; RegExp.prototype.toString = function()` + hang + `; Object.defineProperty(r, 'source', {get()` + hang + `}); r`, wantValue: `{"$regexp":"/a+/g"}`},
		{class: 2, name: "replaced error constructors", code: `Object.defineProperty(globalThis, 'RangeError', {get()` + hang + `}); let a = []; for (let i = 0; i < 200; i++) a = [a]; JSON.stringify(a)`, want: ErrException},
		// Class 3: messages, descriptions and lines are bounded before copying.
		{class: 3, name: "huge Error message", code: `throw new Error('x'.repeat(3e7))`, want: ErrException, maxMessage: 64 << 10},
		{class: 3, name: "huge Error name", code: `const e = new Error('m'); e.name = 'N'.repeat(3e7); throw e`, want: ErrException, maxMessage: 64 << 10},
		{class: 3, name: "huge thrown string", code: `throw 'x'.repeat(3e7)`, want: ErrThrownValue, maxMessage: 64 << 10},
		{class: 3, name: "huge Symbol description", code: `Symbol('x'.repeat(3e7))`, want: ErrOutputTooLarge},
		{class: 3, name: "huge Symbol description, thrown", code: `throw Symbol('x'.repeat(3e7))`, want: ErrThrownValue, maxMessage: 64 << 10},
		{class: 3, name: "huge console lines", code: `const s = 'x'.repeat(3e7); console.log(s); console.log(Symbol(s)); 1`, wantValue: `1`},
		// Class 4: host loops over user-controlled lengths end.
		{class: 4, name: "flat through a species constructor with a huge length", code: `class A extends Array { static get [Symbol.species]() { return function () { return {length: 2 ** 53} } } }; typeof new A(1, [2]).flat(100)`, wantValue: `"object"`},
		// Class 5: mutation during sort.
		{class: 5, name: "sort comparator that empties the array", code: `const a = [5, 4, 3, 2, 1, 0, 9, 8, 7, 6]; a.sort((x, y) => { a.length = 0; return x - y })`, wantValue: `[0,1,2,3,4,5,6,7,8,9]`},
		{class: 5, name: "sort whose toString shrinks the array", code: `const a = [5, 4, 3, 2, 1].map(n => ({toString() { a.length = 1; return String(n) }})); a.sort().length`, wantValue: `5`},
		// Class 9: built-ins check a size the code controls before allocating.
		{class: 9, name: "huge repeat", code: `'x'.repeat(2 ** 30).length`, want: ErrMemoryLimit},
		{class: 9, name: "huge padEnd", code: `'x'.padEnd(2 ** 30).length`, want: ErrMemoryLimit},
		{class: 9, name: "sparse join", code: `const a = []; a.length = 2 ** 32 - 1; a.join('-').length`, want: ErrMemoryLimit},
		{class: 9, name: "fill of a huge sparse array", code: `new Array(2 ** 27).fill(0).length`, want: ErrMemoryLimit},
		{class: 9, name: "split into characters", code: `'x'.repeat(2e7).split('').length`, want: ErrMemoryLimit},
		{class: 9, name: "huge typed array", code: `new Float64Array(2 ** 30).length`, want: ErrMemoryLimit, only: inProcess},
		{class: 9, name: "huge ArrayBuffer", code: `new ArrayBuffer(2 ** 32).byteLength`, want: ErrMemoryLimit, only: inProcess},
		// The buffer constructors are wrapped before a run whose code may
		// reach them (jsrt's reachesGlobal): every indirect way must count.
		{class: 9, name: "huge typed array through globalThis", code: `new globalThis["Float64Arr" + "ay"](2 ** 30).length`, want: ErrMemoryLimit, only: inProcess},
		{class: 9, name: "huge typed array through a sloppy function's this", code: `const g = (function () { return this })(); new g["Float64Arr" + "ay"](2 ** 30).length`, want: ErrMemoryLimit, only: inProcess},
		{class: 9, name: "huge ArrayBuffer through a getter on Object.prototype", code: `Object.defineProperty(Object.prototype, "g", {get: Object.prototype.valueOf}); new g["ArrayBuf" + "fer"](2 ** 32).byteLength`, want: ErrMemoryLimit, only: inProcess},
		{class: 9, name: "huge ArrayBuffer through the global object's new prototype", code: `__proto__ = Object.create(null, {g: {get: Object.prototype.valueOf}}); new g["ArrayBuf" + "fer"](2 ** 32).byteLength`, want: ErrMemoryLimit, only: inProcess},
		{class: 9, name: "huge typed array through an escaped name", code: `new Float64\u0041rray(2 ** 30).length`, want: ErrMemoryLimit, only: inProcess},
		{class: 9, name: "typed array subclass and instanceof still work", code: `class B extends Uint8Array {}; const b = new B(2); [b instanceof Uint8Array, b instanceof B, Uint8Array.BYTES_PER_ELEMENT, new Uint8Array([1, 2]).map(x => x * 2).constructor === Uint8Array]`, wantValue: `[true,true,1,true]`},
		{class: 8, name: "wrapped constructors still behave", code: `[new Date(0) instanceof Date, 'x' instanceof String, new String('x') instanceof String, String(5), typeof String.prototype.at, String.name, Date.name, new Date(0).constructor === Date, ''.constructor === String, Object.getPrototypeOf(new Uint8Array(1)).constructor === Uint8Array]`, wantValue: `[true,false,true,"5","function","String","Date",true,true,true]`},
		{class: 9, name: "concat of a huge sparse array", code: `const a = []; a.length = 2 ** 31; [].concat(a, a).length`, want: ErrMemoryLimit},
		{class: 9, name: "padStart of a huge length", code: `'x'.padStart(2 ** 31, 'ab').length`, want: ErrMemoryLimit},
		{class: 9, name: "a refused allocation is catchable", code: `try { 'x'.repeat(2 ** 30) } catch (e) { e.name }`, wantValue: `"RangeError"`},
		// Class 8: no host detail shows.
		{class: 8, name: "host function names", code: `[console.log.name, String(console.info), JSON.stringify.name, [].flat.name, [].join.name]`, wantValue: `["log","function info() { [native code] }","stringify","flat","join"]`},
		{class: 8, name: "Date in UTC", code: `const d = new Date(2020, 0, 1, 12); [d.getTimezoneOffset(), d.getHours(), d.toISOString(), String(d)]`, wantValue: `[0,12,"2020-01-01T12:00:00.000Z","Wed Jan 01 2020 12:00:00 GMT+0000 (Coordinated Universal Time)"]`},
	}
}

// TestBoundary runs every boundary case on both executors, with a time
// limit far beyond what they need: a case that ran the code's loops would
// end as a timeout instead of the wanted kind.
func TestBoundary(t *testing.T) {
	lim := Limits{Timeout: time.Minute}
	ip, err := NewInProcess(InProcessConfig{Limits: lim})
	require.NoError(t, err)
	iso, err := NewIsolated(IsolatedConfig{Limits: lim, Concurrency: 2})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, iso.Close()) })
	for _, tc := range boundaryCases() {
		for name, e := range map[string]Executor{inProcess: ip, isolated: iso} {
			if tc.only != "" && tc.only != name {
				continue
			}
			t.Run(name+"/class"+itoa(tc.class)+"/"+tc.name, func(t *testing.T) {
				res, err := e.Run(context.Background(), tc.code)
				require.NotNil(t, res)
				text := string(res.Value)
				if tc.want == nil {
					require.NoError(t, err)
					if tc.wantValue != "" {
						require.JSONEq(t, tc.wantValue, text)
					}
				} else {
					var se *Error
					require.True(t, errors.As(err, &se), "want a *sandbox.Error, got %T: %v", err, err)
					require.ErrorIs(t, err, tc.want, "kind %s: %s", se.Kind, truncateUTF8(se.Message, 300))
					text = se.Message
					if tc.maxMessage > 0 {
						require.Less(t, len(se.Message), tc.maxMessage)
					}
				}
				if tc.notText != "" {
					require.NotContains(t, text, tc.notText)
				}
				total := 0
				for _, l := range res.Logs {
					total += len(l.Text)
				}
				require.LessOrEqual(t, total, DefaultLogBytes+512, "console output is bounded")
			})
		}
	}
}

// TestHostTimeZoneHidden runs a Date in a child process whose zone is not
// UTC: the code still sees UTC, however it reaches Date (Date is made UTC
// before a run whose code can reach it).
func TestHostTimeZoneHidden(t *testing.T) {
	if os.Getenv("LOOM_SANDBOX_TEST_TZ") != "" {
		require.NotEqual(t, "UTC", time.Now().Location().String())
		e, err := NewInProcess(InProcessConfig{})
		require.NoError(t, err)
		const probe = `[new D(2020, 6, 1).getTimezoneOffset(), String(new D(0)), new D(2020, 6, 1, 12).getHours(), new D(0) instanceof D]`
		for _, c := range []struct{ name, get string }{
			{"named", `const D = Date;`},
			{"through globalThis", `const D = globalThis["Da" + "te"];`},
			{"through a getter on Object.prototype", `Object.defineProperty(Object.prototype, "g", {get: Object.prototype.valueOf}); const D = g["Da" + "te"];`},
			{"through the global object's new prototype", `__proto__ = Object.create(null, {g: {get: Object.prototype.valueOf}}); const D = g["Da" + "te"];`},
			{"through an escaped name", `const D = \u0044ate;`},
		} {
			res, err := e.Run(context.Background(), c.get+probe)
			require.NoError(t, err, c.name)
			require.JSONEq(t, `[0,"Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)",12,true]`, string(res.Value), c.name)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostTimeZoneHidden$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "LOOM_SANDBOX_TEST_TZ=1", "TZ=America/New_York")
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "UTC\" should not be") {
		t.Skip("this machine has no zone data for America/New_York")
	}
	require.NoError(t, err, "%s", out)
}
