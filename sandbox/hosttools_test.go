package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testTools are the host tools the tests offer, with counters the
// assertions read.
type testTools struct {
	calls       atomic.Int64
	inFlight    atomic.Int64
	maxInFlight atomic.Int64
}

func (tt *testTools) box(t *testing.T, lim CallLimits) *Toolbox {
	t.Helper()
	counted := func(fn HostFunc) HostFunc {
		return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			tt.calls.Add(1)
			n := tt.inFlight.Add(1)
			defer tt.inFlight.Add(-1)
			for {
				m := tt.maxInFlight.Load()
				if n <= m || tt.maxInFlight.CompareAndSwap(m, n) {
					break
				}
			}
			return fn(ctx, args)
		}
	}
	numbers := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number","description":"The first number."},"b":{"type":"number"}},"required":["a","b"]}`)
	message := json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)
	box, err := NewToolbox([]HostTool{
		{Name: "get-sum", Description: "Adds two numbers.", InputSchema: numbers, Call: counted(func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ A, B float64 }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			time.Sleep(time.Millisecond) // lets concurrent calls overlap
			return json.Marshal(map[string]float64{"sum": in.A + in.B})
		})},
		{Name: "echo", InputSchema: message, Call: counted(func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ Message string }
			_ = json.Unmarshal(args, &in)
			return json.Marshal(map[string]string{"echo": in.Message})
		})},
		{Name: "fail", Call: counted(func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("boom")
		})},
		{Name: "panics", Call: counted(func(context.Context, json.RawMessage) (json.RawMessage, error) { panic("oops") })},
		{Name: "not_json", Call: counted(func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage("{nope"), nil
		})},
		{Name: "big", Call: counted(func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.Marshal(strings.Repeat("x", DefaultResultBytes+1))
		})},
		{Name: "deep", Call: counted(func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(strings.Repeat("[", DefaultNesting+1) + strings.Repeat("]", DefaultNesting+1)), nil
		})},
		{Name: "slow", Call: counted(func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})},
	}, lim)
	require.NoError(t, err)
	return box
}

type toolCase struct {
	name  string
	code  string
	want  string // the result's JSON, or
	kind  Kind   // the error's kind, and
	msg   string // a part of its message
	short bool   // run with a short time limit
	check func(t *testing.T, tt *testTools)
}

func toolCases() []toolCase {
	return []toolCase{
		{name: "two calls combined", code: `const a = await tools.get_sum({a: 2, b: 40}); const b = await tools.echo({message: 'hi'}); ({sum: a.sum, echo: b.echo})`,
			want: `{"sum":42,"echo":"hi"}`},
		{name: "concurrent calls", code: `(await Promise.all([1, 2, 3].map(i => tools.get_sum({a: i, b: i})))).map(r => r.sum)`, want: `[2,4,6]`},
		{name: "a tool error is caught", code: `let r; try { await tools.fail() } catch (e) { r = [e instanceof Error, e.name, e.kind, e.message] } r`,
			want: `[true,"ToolError","failed","tools.fail: boom"]`},
		{name: "a tool error carries no host object", code: `let r; try { await tools.fail() } catch (e) { r = [typeof e.value, Object.getOwnPropertyNames(e).sort().join(), Object.getPrototypeOf(e) === Error.prototype] } r`,
			want: `["undefined","kind,message,name,stack",true]`},
		{name: "a result is plain data", code: `const r = await tools.get_sum({a: 1, b: 2}); [Object.getPrototypeOf(r) === Object.prototype, Object.getOwnPropertyNames(r).join(), typeof r.sum]`,
			want: `[true,"sum","number"]`},
		{name: "setters on Object.prototype do not run on a result", code: `Object.defineProperty(Object.prototype, 'sum', {set(v) { throw new Error('setter ran') }, configurable: true});
Object.defineProperty(Array.prototype, '0', {set(v) { throw new Error('setter ran') }, configurable: true});
const r = await tools.get_sum({a: 1, b: 2}); r.sum`, want: `3`},
		{name: "invalid arguments are caught", code: `let r; try { await tools.get_sum({a: 'x'}) } catch (e) { r = [e instanceof TypeError, e.kind] } r`,
			want: `[true,"invalid_arguments"]`, check: func(t *testing.T, tt *testTools) { require.Zero(t, tt.calls.Load(), "the tool was called") }},
		{name: "an argument that is not an object", code: `let r; try { await tools.echo(5) } catch (e) { r = e.message } r`,
			want: `"tools.echo: invalid argument 5: at /: expected object, got number. Call it with an object that meets its signature"`},
		{name: "an uncaught tool error fails the run", code: `await tools.fail({})`, kind: KindException, msg: "tools.fail: boom"},
		{name: "a panicking tool", code: `let r; try { await tools.panics() } catch (e) { r = e.message } r`, want: `"tools.panics: the tool panicked: oops"`},
		{name: "a result that is not JSON", code: `let r; try { await tools.not_json() } catch (e) { r = e.kind } r`, want: `"failed"`},
		{name: "a result too large", code: `let r; try { await tools.big() } catch (e) { r = [e.name, e.kind] } r`, want: `["RangeError","limit"]`},
		{name: "a result nested too deep", code: `let r; try { await tools.deep() } catch (e) { r = [e.name, e.kind] } r`, want: `["RangeError","limit"]`},
		{name: "an argument too large", code: `let r; try { await tools.echo({message: 'x'.repeat(300000)}) } catch (e) { r = [e.name, e.kind] } r`, want: `["RangeError","limit"]`,
			check: func(t *testing.T, tt *testTools) { require.Zero(t, tt.calls.Load()) }},
		{name: "getters and proxies in arguments are not run", code: `let ran = false; const m = {get message() { ran = true; return 'x' }};
let r; try { await tools.echo(m) } catch (e) { r = e.kind }
try { await tools.echo(new Proxy({}, {get() { ran = true }})) } catch (e) { r += ',' + e.kind }
[ran, r]`, want: `[false,"invalid_arguments,invalid_arguments"]`},
		{name: "the call cap", code: `let n = 0, err; for (let i = 0; i < 100; i++) { try { await tools.get_sum({a: 1, b: 1}); n++ } catch (e) { err = e.name + ':' + e.kind; break } } ({n, err})`,
			want: `{"n":5,"err":"RangeError:limit"}`, check: func(t *testing.T, tt *testTools) { require.EqualValues(t, 5, tt.calls.Load()) }},
		{name: "a flood of concurrent calls", code: `const ps = []; for (let i = 0; i < 10000; i++) ps.push(tools.get_sum({a: i, b: 0}).then(() => 1, () => 0)); (await Promise.all(ps)).reduce((a, b) => a + b)`,
			want: `5`, check: func(t *testing.T, tt *testTools) {
				require.EqualValues(t, 5, tt.calls.Load())
				require.LessOrEqual(t, tt.maxInFlight.Load(), int64(2), "more calls in flight than allowed")
			}},
		{name: "only the offered functions", code: `const r = [Object.getPrototypeOf(tools), Object.isFrozen(tools), Object.keys(tools).sort().join()];
tools.x = 1; delete tools.echo; r.push('x' in tools, typeof tools.echo);
try { tools.echo.constructor('return 1') } catch (e) { r.push(e.name) }
try { Object.getPrototypeOf(async () => {}).constructor('return 1') } catch (e) { r.push(e.name) }
r.push(String(tools.echo), tools.echo.name, Object.getOwnPropertyNames(tools.echo).sort().join());
r`, want: `[null,true,"big,deep,echo,fail,get_sum,not_json,panics,slow",false,"function","EvalError","EvalError","function echo() { [native code] }","echo","length,name"]`},
		{name: "a call not awaited ends before the run", code: `tools.get_sum({a: 1, b: 2}); 'done'`, want: `"done"`,
			check: func(t *testing.T, tt *testTools) { require.EqualValues(t, 1, tt.calls.Load()) }},
		{name: "a slow call ends at the deadline", code: `await tools.slow()`, kind: KindTimeout, short: true},
		{name: "a loop on tool calls ends at the deadline", code: `for (;;) { try { await tools.get_sum({a: 1, b: 1}) } catch {} }`, kind: KindTimeout, short: true,
			check: func(t *testing.T, tt *testTools) { require.EqualValues(t, 5, tt.calls.Load()) }},
		{name: "tools is an object", code: `typeof tools`, want: `"object"`},
		{name: "a script's own tools shadows it", code: `const tools = 1; tools`, want: `1`},
	}
}

// TestHostToolsConform runs every case on both executors, which must give
// the same outcome.
func TestHostToolsConform(t *testing.T) {
	roomy := Limits{Timeout: time.Minute}
	short := Limits{Timeout: 300 * time.Millisecond, Grace: time.Second}
	ip, err := NewInProcess(InProcessConfig{Limits: roomy})
	require.NoError(t, err)
	ipShort, err := NewInProcess(InProcessConfig{Limits: short})
	require.NoError(t, err)
	iso := newTestIsolated(t, IsolatedConfig{Limits: roomy, Concurrency: 2})
	isoShort := newTestIsolated(t, IsolatedConfig{Limits: short, Concurrency: 1})
	for _, tc := range toolCases() {
		for _, ex := range []struct {
			name        string
			run, runFor ToolRunner
		}{{"in-process", ip, ipShort}, {"isolated", iso, isoShort}} {
			t.Run(tc.name+"/"+ex.name, func(t *testing.T) {
				tt := &testTools{}
				box := tt.box(t, CallLimits{MaxCalls: 5, MaxInFlight: 2})
				e := ex.run
				if tc.short {
					e = ex.runFor
				}
				res, err := e.RunWithTools(context.Background(), tc.code, box)
				if tc.kind != "" {
					require.Error(t, err)
					require.Equal(t, tc.kind, ErrorKind(err), err.Error())
					require.Contains(t, err.Error(), tc.msg)
				} else {
					require.NoError(t, err)
					require.JSONEq(t, tc.want, string(res.Value))
				}
				if tc.check != nil {
					tc.check(t, tt)
				}
			})
		}
	}
}

// TestNoToolsWithoutAToolbox: a plain run has no tools global.
func TestNoToolsWithoutAToolbox(t *testing.T) {
	for _, e := range []Executor{newTestInProcess(t, InProcessConfig{}), newTestIsolated(t, IsolatedConfig{Concurrency: 1})} {
		res, err := e.Run(context.Background(), `typeof tools`)
		require.NoError(t, err)
		require.JSONEq(t, `"undefined"`, string(res.Value))
	}
}
