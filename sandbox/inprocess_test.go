package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func newTestInProcess(t *testing.T, cfg InProcessConfig) *InProcess {
	t.Helper()
	e, err := NewInProcess(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

func TestJSONForms(t *testing.T) {
	e := newTestInProcess(t, InProcessConfig{})
	cases := []struct {
		name, code, want string
	}{
		{"number", `6*7`, `42`},
		{"negative zero", `-0`, `0`},
		{"float", `0.1+0.2`, `0.30000000000000004`},
		{"large number", `1e21`, `1e+21`},
		{"NaN", `NaN`, `{"$number":"NaN"}`},
		{"Infinity", `[Infinity, -Infinity]`, `[{"$number":"Infinity"},{"$number":"-Infinity"}]`},
		{"string", `"a\"b\n<c>"`, `"a\"b\n<c>"`},
		{"unicode", `"héllo ✓ 😀"`, `"héllo ✓ 😀"`},
		{"lone surrogate", `"\uD800"`, `"\ufffd"`},
		{"booleans and null", `[true, false, null]`, `[true,false,null]`},
		{"undefined in array and object", `[undefined, {a: undefined, b: 1}]`, `[null,{"b":1}]`},
		{"hole", `[1,,3]`, `[1,null,3]`},
		{"BigInt", `2n**64n`, `{"$bigint":"18446744073709551616"}`},
		{"Map", `new Map([["a", 1], [{k: 1}, [2]]])`, `{"$map":[["a",1],[{"k":1},[2]]]}`},
		{"Set", `new Set([1, "x", 1])`, `{"$set":[1,"x"]}`},
		{"Date", `new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6))`, `{"$date":"2024-01-02T03:04:05.006Z"}`},
		{"invalid Date", `new Date(NaN)`, `{"$date":"Invalid Date"}`},
		{"RegExp", `/a+b/gi`, `{"$regexp":"/a+b/gi"}`},
		{"function", `function add(a, b) { return a + b }; add`, `{"$function":"add"}`},
		{"arrow", `[() => 1]`, `[{"$function":""}]`},
		{"class", `class Point {}; Point`, `{"$function":"Point"}`},
		{"class instance", `class P { constructor() { this.x = 1; this.#y = 2 } #y; get z() { return 3 } }; new P()`, `{"x":1}`},
		{"symbol", `Symbol("tag")`, `{"$symbol":"tag"}`},
		{"symbol keys are skipped", `({[Symbol("k")]: 1, a: 2})`, `{"a":2}`},
		{"accessor", `({get a() { return 1 }, set b(v) {}, get c() { return 1 }, set c(v) {}})`, `{"a":{"$accessor":"get"},"b":{"$accessor":"set"},"c":{"$accessor":"get/set"}}`},
		{"Error value", `new RangeError("out")`, `{"$error":{"name":"RangeError","message":"out"}}`},
		{"nested promise", `[Promise.resolve(1), new Promise(() => {}), Promise.reject(1).catch(() => {}) && Promise.reject(2)]`, `[{"$promise":"fulfilled"},{"$promise":"pending"},{"$promise":"rejected"}]`},
		{"Proxy", `[new Proxy([1], {})]`, `[{"$object":"Proxy"}]`},
		{"typed array", `new Uint8Array([1, 2, 255])`, `[1,2,255]`},
		{"float typed array", `new Float64Array([0.5, NaN])`, `[0.5,{"$number":"NaN"}]`},
		{"shared reference", `const x = {v: 1}; [x, x]`, `[{"v":1},{"v":1}]`},
		{"non-enumerable skipped", `Object.defineProperty({a: 1}, "b", {value: 2})`, `{"a":1}`},
		{"awaited promise", `Promise.resolve({done: true})`, `{"done":true}`},
		{"top-level await", `const v = await Promise.resolve(41); v + 1`, `42`},
		{"top-level await, parenthesised last expression", "await null;\n(1 + 2)", `3`},
		{"top-level await, last line is a comment", "const r = await 5\nr * 2 // done", `10`},
		{"await as the result", `await Promise.resolve("x")`, `"x"`},
		{"await in a nested function only", `async function f() { return await 2 }; f()`, `2`},
		{"prototype getters are not called", `Object.defineProperty(Object.prototype, "x", {get() { for(;;){} }}); ({y: 1})`, `{"y":1}`},
		{"replaced Object.keys does not change the walk", `Object.keys = () => ["evil"]; ({a: 1})`, `{"a":1}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Run(context.Background(), tc.code)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(res.Value))
			require.False(t, res.Undefined)
		})
	}
}

func TestUndefinedResult(t *testing.T) {
	e := newTestInProcess(t, InProcessConfig{})
	for _, code := range []string{`let x = 1`, `undefined`, `void 0`, `await null; let y`, `console.log(1)`} {
		res, err := e.Run(context.Background(), code)
		require.NoError(t, err, code)
		require.True(t, res.Undefined, code)
		require.Equal(t, "null", string(res.Value), code)
	}
}

func TestConsole(t *testing.T) {
	e := newTestInProcess(t, InProcessConfig{})
	res, err := e.Run(context.Background(), `
console.log("a", 1, {b: [2]}, undefined, null, 3n, Symbol("s"));
console.info("i"); console.warn("w"); console.error("e"); console.debug("d"); console.trace("t"); console.dir({x: 1});
Promise.reject(new TypeError("nobody waits")); 1`)
	require.NoError(t, err)
	require.Equal(t, []LogLine{
		{Level: LevelLog, Text: `a 1 {"b":[2]} undefined null 3n Symbol(s)`},
		{Level: LevelInfo, Text: "i"}, {Level: LevelWarn, Text: "w"}, {Level: LevelError, Text: "e"}, {Level: LevelDebug, Text: "d"}, {Level: LevelDebug, Text: "t"}, {Level: LevelLog, Text: `{"x":1}`},
		{Level: LevelError, Text: "Uncaught (in promise) TypeError: nobody waits"},
	}, res.Logs)
}

func TestConsoleBytesAreBounded(t *testing.T) {
	e := newTestInProcess(t, InProcessConfig{Limits: Limits{LogBytes: 100}})
	res, err := e.Run(context.Background(), `console.log("x".repeat(60)); console.log({s: "y".repeat(80)}); console.log("never"); 1`)
	require.NoError(t, err)
	require.Len(t, res.Logs, 3)
	require.Equal(t, strings.Repeat("x", 60), res.Logs[0].Text)
	require.True(t, strings.HasPrefix(res.Logs[1].Text, `{"s":"yyy`), res.Logs[1].Text)
	require.LessOrEqual(t, len(res.Logs[0].Text)+len(res.Logs[1].Text), 100+len("…"))
	require.Contains(t, res.Logs[2].Text, "console output truncated")
}

func TestErrorsCarryPositionsAndLogs(t *testing.T) {
	e := newTestInProcess(t, InProcessConfig{})
	cases := []struct {
		name, code string
		kind       Kind
		line, col  int
		text       string
	}{
		{"syntax", "const a = 1;\nconst b = ;", KindSyntax, 2, 11, "SyntaxError at line 2, column 11"},
		{"syntax shows the line", "let x = {a: 1,,}", KindSyntax, 1, 16, "    let x = {a: 1,,}"},
		{"import", `import fs from "fs"`, KindSyntax, 1, 1, "import and export are not supported"},
		{"redeclaration", "let a = 1; let a = 2", KindSyntax, 1, 16, "SyntaxError"},
		{"exception", "console.log('before');\nfunction f() {\n  return null.x\n}\nf()", KindException, 3, 15, "at f (code.js:3:15)"},
		{"exception in awaited code", "await null;\nfunction f() {\n  throw new Error('deep')\n}\nf()", KindException, 3, 9, "Uncaught Error: deep\n    at f (code.js:3:9)"},
		{"rejection of awaited code", "await null;\nawait Promise.reject(new Error('no'))", KindException, 2, 22, "Uncaught Error: no"},
		{"rejected final promise", "Promise.reject(new Error('x'))", KindException, 1, 16, "Uncaught (in promise) Error: x"},
		{"custom error class", "class MyError extends Error { constructor(m) { super(m); this.name = 'MyError' } }\nthrow new MyError('mine')", KindException, 1, 53, "Uncaught MyError: mine"},
		{"async generator", "async function* g() {}", KindSyntax, 1, 1, "Async generators"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Run(context.Background(), tc.code)
			var se *Error
			require.True(t, errors.As(err, &se), "%v", err)
			require.Equal(t, tc.kind, se.Kind)
			require.Contains(t, se.Message, tc.text)
			if tc.line > 0 && tc.name != "async generator" {
				require.Equal(t, tc.line, se.Line, se.Message)
				require.Equal(t, tc.col, se.Column, se.Message)
			}
			require.NotNil(t, res)
		})
	}
	res, err := e.Run(context.Background(), "console.log('before'); throw new Error('x')")
	require.ErrorIs(t, err, ErrException)
	require.Equal(t, []LogLine{{Level: LevelLog, Text: "before"}}, res.Logs)
	var se *Error
	require.ErrorAs(t, err, &se)
	require.Equal(t, "Error", se.Name)
	require.Contains(t, se.Stack, "code.js:1:")
}

// TestAwaitWrappingKeepsPositions checks that code wrapped for top-level
// await reports the same positions as the same code unwrapped.
func TestAwaitWrappingKeepsPositions(t *testing.T) {
	e := newTestInProcess(t, InProcessConfig{})
	pairs := [][2]string{
		// Each pair differs only by "await 1" against "(((1)))", of the same length.
		{"(((1)));\nfunction f() { throw new Error('x') }\nf()", "await 1;\nfunction f() { throw new Error('x') }\nf()"},
		{"function f() { throw new Error('x') }; (((1))); f()", "function f() { throw new Error('x') }; await 1; f()"},
		{"let a = (((1)));\n  [a].map(v => v.y.z)", "let a = await 1;\n  [a].map(v => v.y.z)"},
		{"(((1))); null.x", "await 1; null.x"},
	}
	for _, p := range pairs {
		_, plain := e.Run(context.Background(), p[0])
		_, wrapped := e.Run(context.Background(), p[1])
		var a, b *Error
		require.ErrorAs(t, plain, &a)
		require.ErrorAs(t, wrapped, &b)
		require.Equal(t, a.Stack, b.Stack)
		require.Equal(t, [2]int{a.Line, a.Column}, [2]int{b.Line, b.Column})
	}
}

func TestDeterministicClockAndRandom(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	e := newTestInProcess(t, InProcessConfig{FixedTime: at, RandSeed: 7})
	code := `[Date.now(), new Date().toISOString(), Math.random(), Math.random()]`
	a, err := e.Run(context.Background(), code)
	require.NoError(t, err)
	b, err := e.Run(context.Background(), code)
	require.NoError(t, err)
	require.JSONEq(t, string(a.Value), string(b.Value))
	require.Contains(t, string(a.Value), fmt.Sprint(at.UnixMilli()))
	require.Contains(t, string(a.Value), "2025-03-04T05:06:07.000Z")
	c, err := newTestInProcess(t, InProcessConfig{RandSeed: 8}).Run(context.Background(), `Math.random()`)
	require.NoError(t, err)
	require.NotContains(t, string(a.Value), string(c.Value))

	// RandSeed 0 is no seed: each run draws its own sequence.
	unseeded := newTestInProcess(t, InProcessConfig{})
	d, err := unseeded.Run(context.Background(), `[Math.random(), Math.random()]`)
	require.NoError(t, err)
	f, err := unseeded.Run(context.Background(), `[Math.random(), Math.random()]`)
	require.NoError(t, err)
	require.NotEqual(t, string(d.Value), string(f.Value))
}

func TestContextEndsTheRun(t *testing.T) {
	e := newTestInProcess(t, InProcessConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.Run(ctx, `for(;;){}`)
	require.Less(t, time.Since(start), 2*time.Second)
	require.ErrorIs(t, err, ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = e.Run(ctx, `for(;;){}`)
	require.ErrorIs(t, err, ErrCanceled)
	require.ErrorIs(t, err, context.Canceled)

	_, err = e.Run(ctx, `1`)
	require.ErrorIs(t, err, ErrCanceled, "a run on a canceled context does not start")
}

func TestConcurrencyCapWaitsForASlot(t *testing.T) {
	e := newTestInProcess(t, InProcessConfig{Concurrency: 1, Limits: Limits{Timeout: 300 * time.Millisecond}})
	done := make(chan error, 1)
	go func() {
		_, err := e.Run(context.Background(), `for(;;){}`)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := e.Run(ctx, `1`)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the only slot is taken")
	require.ErrorIs(t, <-done, ErrTimeout)
	res, err := e.Run(context.Background(), `1`)
	require.NoError(t, err)
	require.Equal(t, "1", string(res.Value))
}

func TestClosedExecutor(t *testing.T) {
	e, err := NewInProcess(InProcessConfig{})
	require.NoError(t, err)
	require.NoError(t, e.Close())
	_, err = e.Run(context.Background(), `1`)
	require.ErrorIs(t, err, ErrClosed)
	require.NoError(t, e.Wait(context.Background()))
}

// TestInvalidConfig: a config the executors refuse fails at construction,
// with ErrInvalidConfig and the field's name, before any worker starts.
func TestInvalidConfig(t *testing.T) {
	cases := []struct {
		name  string
		build func() error
		field string
	}{
		{"in-process limit", func() error { _, err := NewInProcess(InProcessConfig{Limits: Limits{Timeout: -1}}); return err }, "InProcessConfig.Limits.Timeout is -1ns"},
		{"in-process concurrency", func() error { _, err := NewInProcess(InProcessConfig{Concurrency: -2}); return err }, "InProcessConfig.Concurrency is -2"},
		{"isolated limit", func() error { _, err := NewIsolated(IsolatedConfig{Limits: Limits{Memory: -1}}); return err }, "IsolatedConfig.Limits.Memory is -1"},
		{"isolated concurrency", func() error { _, err := NewIsolated(IsolatedConfig{Concurrency: -1}); return err }, "IsolatedConfig.Concurrency is -1"},
		{"isolated start timeout", func() error { _, err := NewIsolated(IsolatedConfig{StartTimeout: -time.Second}); return err }, "IsolatedConfig.StartTimeout is -1s"},
		{"isolated empty worker path", func() error { _, err := NewIsolated(IsolatedConfig{WorkerCommand: []string{""}}); return err }, "WorkerCommand starts with an empty program path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.build()
			require.ErrorIs(t, err, ErrInvalidConfig)
			require.ErrorContains(t, err, c.field)
		})
	}
}

// TestConcurrentRunsShareNothing runs many snippets at once (under -race in
// CI): every run sets globals and pollutes prototypes, and none sees
// another's.
func TestConcurrentRunsShareNothing(t *testing.T) {
	e := newTestInProcess(t, InProcessConfig{Concurrency: 8})
	const workers, runs = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*runs)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < runs; i++ {
				id := w*1000 + i
				code := fmt.Sprintf(`
const before = [typeof globalThis.x, ({}).polluted, Array.prototype.extra];
globalThis.x = %d; Object.prototype.polluted = %d; Array.prototype.extra = %d;
console.log("run", x);
let s = 0; for (let k = 0; k < 1000; k++) s += k;
({before, x, s})`, id, id, id)
				res, err := e.Run(context.Background(), code)
				if err != nil {
					errs <- err
					continue
				}
				want := fmt.Sprintf(`{"before":["undefined",null,null],"x":%d,"s":499500}`, id)
				if string(res.Value) != want || len(res.Logs) != 1 || res.Logs[0].Text != fmt.Sprintf("run %d", id) {
					errs <- fmt.Errorf("run %d: got %s %v", id, res.Value, res.Logs)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// TestAbandonedRunKeepsItsSlot: a built-in that ignores interrupts (a
// backtracking regular expression) is given up at the deadline plus grace,
// and its goroutine keeps its concurrency slot until it really ends.
func TestAbandonedRunKeepsItsSlot(t *testing.T) {
	e := newTestInProcess(t, InProcessConfig{Concurrency: 1, Limits: Limits{Timeout: 50 * time.Millisecond, Grace: 50 * time.Millisecond}})
	start := time.Now()
	_, err := e.Run(context.Background(), `/^(a+)+(?=b)/.test('a'.repeat(23)+'c')`)
	require.ErrorIs(t, err, ErrTimeout)
	require.Contains(t, err.Error(), "cannot be interrupted")
	require.Less(t, time.Since(start), time.Second)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = e.Run(ctx, `1`)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the abandoned run still holds the only slot")

	require.NoError(t, e.Wait(context.Background()))
	res, err := e.Run(context.Background(), `1`)
	require.NoError(t, err)
	require.Equal(t, "1", string(res.Value))
}
