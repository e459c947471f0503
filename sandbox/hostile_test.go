package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Executors a hostile case runs under.
const (
	inProcess = "in-process"
	isolated  = "isolated"
)

// hostileLimits keep the hostile table fast: short time limits, a small
// memory budget.
var hostileLimits = Limits{Timeout: 500 * time.Millisecond, Grace: 500 * time.Millisecond, Memory: 64 << 20}

// memoryLimits are for cases that must reach the memory limit first.
var memoryLimits = Limits{Timeout: time.Minute, Grace: 500 * time.Millisecond, Memory: 32 << 20}

// roomyLimits are for cases that expect any kind but a timeout: their time
// limit is far beyond what they need even under -race on a loaded 2-core
// machine, so the intended kind never races the clock.
var roomyLimits = Limits{Timeout: 60 * time.Second, Grace: 500 * time.Millisecond, Memory: 64 << 20}

// expectsTimeout reports whether a case may end in a timeout.
func (tc hostileCase) expectsTimeout() bool {
	for _, w := range tc.want {
		if w == ErrTimeout {
			return true
		}
	}
	return false
}

// hostileCase is one row of the attack and fault catalogue of
// shared/research/sandbox.md §2.
type hostileCase struct {
	row  int    // the catalogue's row
	name string // what the case does
	exec string // inProcess or isolated
	code string
	// want is the sentinel(s) the error must match (any of them); nil means
	// the run succeeds, with value wantValue when it is set.
	want      []error
	wantValue string
	// wantText must appear in the error message or the value.
	wantText string
	// osLimit marks cases only the worker's OS memory limit contains.
	osLimit bool
	// memory marks cases that must reach the memory limit before the time
	// limit: they run with a longer time limit.
	memory bool
}

func hostileCases() []hostileCase {
	deep := "let a=[];for(let i=0;i<1e5;i++)a=[a];"
	return []hostileCase{
		{row: 1, name: "infinite loop", exec: inProcess, code: `for(;;){}`, want: []error{ErrTimeout}, wantText: "join"},
		{row: 1, name: "loop that catches its interrupt", exec: inProcess, code: `for(;;){ try { for(;;){} } catch(e) {} finally { for(;;){} } }`, want: []error{ErrTimeout}},
		{row: 2, name: "infinite recursion", exec: inProcess, code: `function f(){return f()+1}; f()`, want: []error{ErrStackOverflow}, wantText: "at f (code.js:1:"},
		{row: 2, name: "recursion that catches the overflow", exec: inProcess, code: `function f(){ try { return f() } catch(e) { return f() } }; f()`, want: []error{ErrStackOverflow}},
		{row: 3, name: "JS-level memory bomb", exec: inProcess, code: `const a=[];for(;;)a.push(new Array(1e4).fill(a.length))`, want: []error{ErrMemoryLimit}, memory: true},
		{row: 3, name: "JS-level memory bomb", exec: isolated, code: `const a=[];for(;;)a.push(new Array(1e4).fill(a.length))`, want: []error{ErrMemoryLimit}, memory: true},
		{row: 4, name: "one huge string allocation", exec: isolated, code: `'x'.repeat(2**30).length`, want: []error{ErrMemoryLimit}, osLimit: true},
		{row: 4, name: "one huge ArrayBuffer", exec: isolated, code: `new Uint8Array(new ArrayBuffer(2**32)).fill(1).length`, want: []error{ErrMemoryLimit, ErrWorkerCrashed}, osLimit: true},
		{row: 5, name: "string doubling", exec: isolated, code: `let s='x';for(;;)s+=s`, want: []error{ErrMemoryLimit}, osLimit: true},
		{row: 6, name: "accidental quadratic string building", exec: inProcess, code: `let s='';for(let i=0;i<1e6;i++)s+='abc';s.length`, want: []error{ErrTimeout}, wantText: "join('')"},
		{row: 7, name: "regexp backtracking", exec: isolated, code: `/^(a+)+(?=b)/.test('a'.repeat(40)+'c')`, want: []error{ErrTimeout}, wantText: "cannot be interrupted"},
		{row: 8, name: "deeply nested source (2 MB)", exec: inProcess, code: strings.Repeat("[", 1e6) + strings.Repeat("]", 1e6), want: []error{ErrCodeTooLarge}},
		{row: 8, name: "nested source within the size limit", exec: inProcess, code: strings.Repeat("[", 3e4) + strings.Repeat("]", 3e4), want: []error{ErrNestingTooDeep}, wantText: "line 1, column 257"},
		{row: 8, name: "nested template literals", exec: inProcess, code: strings.Repeat("`${", 300) + "1" + strings.Repeat("}`", 300), want: []error{ErrNestingTooDeep}},
		{row: 8, name: "long constant && chain (exponential to fold; loom folds nothing)", exec: inProcess, code: strings.Repeat("1&&", 40) + "2", wantValue: `2`},
		{row: 8, name: "constant && chain after of used as a name (read as a regexp by a tokenizer)", exec: inProcess, code: "let of = 1; of / (" + strings.Repeat("1&&", 40) + "1) / 1", wantValue: `1`},
		{row: 8, name: "long operator chain (quadratic compile)", exec: inProcess, code: strings.Repeat("'a'+", 5000) + "'a'", want: []error{ErrNestingTooDeep}},
		{row: 8, name: "prefix operator run", exec: inProcess, code: strings.Repeat("!", 5000) + "1", want: []error{ErrNestingTooDeep}},
		{row: 8, name: "arrow functions nested through commas (quadratic parse)", exec: inProcess, code: "x=" + strings.Repeat(strings.Repeat("a=>", 990)+"(0,", 21) + "1" + strings.Repeat(")", 21), want: []error{ErrNestingTooDeep}},
		{row: 9, name: "eval of nested source", exec: inProcess, code: `eval('['.repeat(3e5)+']'.repeat(3e5))`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 9, name: "Function of nested source", exec: inProcess, code: `Function('return '+'['.repeat(3e5)+']'.repeat(3e5))()`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 9, name: "function constructor route", exec: inProcess, code: `(()=>0).constructor('return 1')()`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 9, name: "async function constructor route", exec: inProcess, code: `(async()=>0).constructor('return 1')()`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 9, name: "generator function constructor route", exec: inProcess, code: `(function*(){}).constructor('yield 1')().next()`, want: []error{ErrException}, wantText: "EvalError"},
		// AsyncFunction and GeneratorFunction are locked before the run when
		// the code defines a function of their kind (jsrt's funcKinds): every
		// way of defining one must count.
		{row: 9, name: "generator method constructor route", exec: inProcess, code: `({*g(){}}).g.constructor('yield 1')`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 9, name: "class generator method constructor route", exec: inProcess, code: `class C { static *[Symbol.iterator](){} }; Object.getPrototypeOf(C[Symbol.iterator]).constructor('yield 1')`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 9, name: "generator object's constructor route", exec: inProcess, code: `function* g(){}; Object.getPrototypeOf(Object.getPrototypeOf(g())).constructor.constructor('yield 1')`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 9, name: "async method constructor route", exec: inProcess, code: `class C { async m(){} }; new C().m.constructor('return 1')`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 9, name: "nested async function constructor route", exec: inProcess, code: `function outer(){ return async function(){} }; outer().constructor('return 1')`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 9, name: "top-level await's wrapper constructor route", exec: inProcess, code: `await 1; (async () => 0).constructor('return 1')`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 9, name: "async arrow in a default parameter", exec: inProcess, code: `function f(a = async () => 0){ return a }; f().constructor('return 1')`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 9, name: "Reflect.construct route", exec: inProcess, code: `Reflect.construct(Object.getPrototypeOf(function(){}).constructor, ['return 1'])()`, want: []error{ErrException}},
		{row: 9, name: "indirect eval", exec: inProcess, code: `(0, globalThis['ev'+'al'])('1')`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 10, name: "String of deep data", exec: inProcess, code: deep + `String(a)`, want: []error{ErrStackOverflow}},
		{row: 10, name: "join of deep data", exec: inProcess, code: deep + `a.join(',')`, want: []error{ErrStackOverflow}},
		{row: 10, name: "JSON.stringify of deep data", exec: inProcess, code: deep + `JSON.stringify(a)`, want: []error{ErrException}, wantText: "nested more than 128 levels"},
		{row: 10, name: "JSON.parse of deep text", exec: inProcess, code: `JSON.parse('['.repeat(1e6)+']'.repeat(1e6))`, want: []error{ErrException}, wantText: "nested more than 256 levels"},
		{row: 10, name: "flat(Infinity) of deep data", exec: inProcess, code: deep + `a.flat(Infinity).length`, wantValue: `0`},
		{row: 10, name: "deep data as the result", exec: inProcess, code: deep + `a`, want: []error{ErrOutputTooLarge}, wantText: "128 levels"},
		{row: 11, name: "huge result", exec: inProcess, code: `'x'.repeat(1e7)`, want: []error{ErrOutputTooLarge}},
		{row: 11, name: "console spam", exec: inProcess, code: `for(let i=0;i<1e5;i++)console.log('line', i); 'done'`, wantValue: `"done"`},
		{row: 12, name: "prototype pollution and globals", exec: inProcess, code: `Object.prototype.isAdmin=true; Array.prototype.push=null; globalThis.cache={k:1}; 1`, wantValue: `1`},
		{row: 12, name: "prototype pollution and globals", exec: isolated, code: `Object.prototype.isAdmin=true; globalThis.cache={k:1}; 1`, wantValue: `1`},
		{row: 17, name: "Function('return this')", exec: inProcess, code: `Function('return this')()`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 18, name: "microtask flood", exec: inProcess, code: `function f(){Promise.resolve().then(f)}; f()`, want: []error{ErrTimeout}},
		{row: 18, name: "doubling microtask flood", exec: isolated, code: `function f(){Promise.resolve().then(f);Promise.resolve().then(f)}; f()`, want: []error{ErrTimeout, ErrMemoryLimit}},
		{row: 18, name: "awaiting forever", exec: inProcess, code: `await new Promise(() => {})`, want: []error{ErrUnsettledPromise}},
		{row: 19, name: "no timers", exec: inProcess, code: `setTimeout(() => {}, 0)`, want: []error{ErrException}, wantText: "no require, modules, process, timers"},
		{row: 19, name: "no host objects", exec: inProcess, code: `[typeof require, typeof process, typeof fetch, typeof setTimeout, typeof console.log]`, wantValue: `["undefined","undefined","undefined","undefined","function"]`},
		{row: 19, name: "no host realm through constructors", exec: inProcess, code: `this.constructor.constructor('return process')()`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 21, name: "throw 1", exec: inProcess, code: `throw 1`, want: []error{ErrThrownValue}, wantText: "not an Error: 1"},
		{row: 21, name: "throw null", exec: inProcess, code: `throw null`, want: []error{ErrThrownValue}, wantText: "not an Error: null"},
		{row: 21, name: "throw undefined", exec: inProcess, code: `throw undefined`, want: []error{ErrThrownValue}, wantText: "not an Error: undefined"},
		{row: 21, name: "throw Symbol()", exec: inProcess, code: `throw Symbol('s')`, want: []error{ErrThrownValue}, wantText: `{"$symbol":"s"}`},
		{row: 22, name: "thrown object whose toString throws", exec: inProcess, code: `throw {toString(){throw 1}}`, want: []error{ErrThrownValue}},
		{row: 22, name: "thrown object whose toString loops", exec: inProcess, code: `throw {toString(){for(;;){}}}`, want: []error{ErrThrownValue}, wantText: `"toString":{"$function":"toString"}`},
		{row: 22, name: "Error whose message getter loops", exec: inProcess, code: `const e=new Error('x'); Object.defineProperty(e,'message',{get(){for(;;){}}}); throw e`, want: []error{ErrException}},
		{row: 22, name: "thrown Proxy with looping traps", exec: inProcess, code: `throw new Proxy({}, {get(){for(;;){}}, ownKeys(){for(;;){}}, getOwnPropertyDescriptor(){for(;;){}}})`, want: []error{ErrThrownValue}, wantText: `"$object":"Proxy"`},
		{row: 23, name: "result whose toString loops", exec: inProcess, code: `({toString(){for(;;){}}, valueOf(){for(;;){}}})`, wantValue: `{"toString":{"$function":"toString"},"valueOf":{"$function":"valueOf"}}`},
		{row: 23, name: "result with a throwing getter", exec: inProcess, code: `({get a(){throw 1}, b:2})`, wantValue: `{"a":{"$accessor":"get"},"b":2}`},
		{row: 23, name: "result with Symbol.toPrimitive", exec: inProcess, code: `({[Symbol.toPrimitive](){for(;;){}}, toJSON(){for(;;){}}})`, wantValue: `{"toJSON":{"$function":"toJSON"}}`},
		{row: 24, name: "Proxy result", exec: inProcess, code: `new Proxy({}, {ownKeys(){for(;;){}}, get(){for(;;){}}})`, wantValue: `{"$object":"Proxy"}`},
		{row: 25, name: "Symbol result", exec: inProcess, code: `[Symbol('s'), {[Symbol('k')]: 1, a: 2}]`, wantValue: `[{"$symbol":"s"},{"a":2}]`},
		{row: 26, name: "huge BigInt", exec: isolated, code: `2n**(2n**30n)`, want: []error{ErrMemoryLimit, ErrTimeout}, osLimit: true},
		{row: 27, name: "cyclic JSON.stringify", exec: inProcess, code: `const a={}; a.a=a; JSON.stringify(a)`, want: []error{ErrException}, wantText: "TypeError"},
		{row: 27, name: "cyclic join", exec: inProcess, code: `const a=[1]; a.push(a); a.join()`, wantValue: `"1,"`},
		{row: 27, name: "cyclic result", exec: inProcess, code: `const a={b:{c:[1]}}; a.b.c.push(a); a`, want: []error{ErrCyclicValue}, wantText: "result.b.c[1] refers back to result"},
		{row: 30, name: "sparse join", exec: isolated, code: `const a=[]; a.length=2**32-1; a.join().length`, want: []error{ErrTimeout, ErrMemoryLimit}},
		{row: 30, name: "huge fill", exec: isolated, code: `new Array(2**27).fill(0).length`, want: []error{ErrTimeout, ErrMemoryLimit}, osLimit: true},
		// Native recursion: goja's built-ins calling each other in Go
		// overflow the Go stack, which kills the process. Only a worker
		// contains it (recursion_test.go has more).
		{row: 2, name: "native recursion through toLocaleString", exec: isolated, code: `const o={}; o.toString=Object.prototype.toLocaleString; String(o)`, want: []error{ErrStackOverflow}, wantText: "recursed too deeply"},
		{row: 10, name: "native recursion through toJSON", exec: isolated, code: `const o = {}; o.toJSON = JSON.stringify.bind(null, o); JSON.stringify(o)`, want: []error{ErrStackOverflow}, wantText: "recursed too deeply"},
		{row: 13, name: "no host realm through a bound constructor", exec: inProcess, code: `Function.prototype.bind.call(Function.prototype.constructor, null, 'return 1')()`, want: []error{ErrException}, wantText: "EvalError"},
		{row: 20, name: "clock and randomness are the sandbox's", exec: inProcess, code: `[typeof Date.now(), Math.random() < 1, new Date(0).toISOString()]`, wantValue: `["number",true,"1970-01-01T00:00:00.000Z"]`},
		{row: 29, name: "no process, environment or files", exec: inProcess, code: `[typeof require, typeof process, typeof Deno, typeof Bun, typeof globalThis.os]`, wantValue: `["undefined","undefined","undefined","undefined","undefined"]`},
		{row: 5, name: "sort comparator that empties the array", exec: inProcess, code: `const a=[3,1,2]; a.sort((x,y)=>{a.length=0; return x-y})`, wantValue: `[1,2,3]`},
	}
}

// hostileRuns is every case on its executor and, for in-process cases, on
// the isolated executor too: the worker is the boundary for untrusted code,
// so every class must be contained there with the same kind.
func hostileRuns() []hostileCase {
	cases := hostileCases()
	seen := map[string]bool{}
	for _, tc := range cases {
		if tc.exec == isolated {
			seen[itoa(tc.row)+tc.name] = true
		}
	}
	var out []hostileCase
	for _, tc := range cases {
		out = append(out, tc)
		if tc.exec == inProcess && !seen[itoa(tc.row)+tc.name] {
			iso := tc
			iso.exec = isolated
			out = append(out, iso)
		}
	}
	return out
}

// nextRunCode checks that a run after a hostile one works and sees none of
// its state.
const nextRunCode = `[typeof globalThis.cache, ({}).isAdmin === undefined, [1].push(2), 1+1]`
const nextRunWant = `["undefined",true,2,2]`

func TestHostileCode(t *testing.T) {
	ip, err := NewInProcess(InProcessConfig{Limits: hostileLimits})
	require.NoError(t, err)
	iso, err := NewIsolated(IsolatedConfig{Limits: hostileLimits, Concurrency: 2})
	require.NoError(t, err)
	ipMem, err := NewInProcess(InProcessConfig{Limits: memoryLimits})
	require.NoError(t, err)
	isoMem, err := NewIsolated(IsolatedConfig{Limits: memoryLimits, Concurrency: 1})
	require.NoError(t, err)
	ipRoomy, err := NewInProcess(InProcessConfig{Limits: roomyLimits})
	require.NoError(t, err)
	isoRoomy, err := NewIsolated(IsolatedConfig{Limits: roomyLimits, Concurrency: 2})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, iso.Close())
		require.NoError(t, isoMem.Close())
		require.NoError(t, isoRoomy.Close())
		require.NoError(t, ip.Close())
		require.NoError(t, ipMem.Close())
		require.NoError(t, ipRoomy.Close())
	})
	execs := map[string]Executor{inProcess: ip, isolated: iso}
	memExecs := map[string]Executor{inProcess: ipMem, isolated: isoMem}
	roomyExecs := map[string]Executor{inProcess: ipRoomy, isolated: isoRoomy}
	cases := hostileRuns()
	// Isolated cases run in parallel with each other (each in its own
	// process); in-process cases run one at a time, since the heap
	// watchdog sees the whole process.
	for _, tc := range cases {
		t.Run(tc.exec+"/row"+itoa(tc.row)+"/"+tc.name, func(t *testing.T) {
			if tc.exec == isolated {
				t.Parallel()
			}
			if tc.osLimit && iso.MemoryEnforcement() == "none" {
				t.Skip("needs the worker's OS memory limit, which a -race binary does not set; the run without -race covers it")
			}
			e, lim := execs[tc.exec], hostileLimits
			switch {
			case tc.memory:
				e, lim = memExecs[tc.exec], memoryLimits
			case !tc.expectsTimeout():
				e, lim = roomyExecs[tc.exec], roomyLimits
			}
			bound := lim.Timeout + lim.Grace + killMargin + 2*time.Second
			start := time.Now()
			res, err := e.Run(context.Background(), tc.code)
			took := time.Since(start)
			require.Less(t, took, bound, "the run must end within its limit plus a margin")
			require.NotNil(t, res, "Run returns a Result with the output so far")
			if tc.want == nil {
				require.NoError(t, err)
				if tc.wantValue != "" {
					require.JSONEq(t, tc.wantValue, string(res.Value))
				}
			} else {
				require.Error(t, err)
				var se *Error
				require.True(t, errors.As(err, &se), "a sandbox failure is a *sandbox.Error, got %T: %v", err, err)
				matched := false
				for _, w := range tc.want {
					matched = matched || errors.Is(err, w)
				}
				require.True(t, matched, "error %q (kind %s) should match one of %v", err, se.Kind, tc.want)
				require.NotEmpty(t, se.Message)
			}
			if tc.wantText != "" {
				text := string(res.Value)
				if err != nil {
					text = err.Error()
				}
				require.Contains(t, text, tc.wantText)
			}
			// The host survived; the next run on the same executor works and
			// sees nothing of this one.
			next, err := e.Run(context.Background(), nextRunCode)
			require.NoError(t, err)
			require.JSONEq(t, nextRunWant, string(next.Value))
		})
	}
}

func TestHostileConsoleSpamIsTruncated(t *testing.T) {
	e, err := NewInProcess(InProcessConfig{Limits: Limits{LogLines: 10}})
	require.NoError(t, err)
	res, err := e.Run(context.Background(), `for(let i=0;i<1e5;i++)console.log('line', i); 'done'`)
	require.NoError(t, err)
	require.Len(t, res.Logs, 11)
	require.Equal(t, "line 0", res.Logs[0].Text)
	require.Contains(t, res.Logs[10].Text, "console output truncated")
	require.Equal(t, LevelWarn, res.Logs[10].Level)
}

// processKillers are inputs that kill a process running goja without the
// sandbox's admission checks. They run in a child test process.
var processKillers = map[string]string{
	"nested source": strings.Repeat("[", 1e6) + strings.Repeat("]", 1e6),
}

// TestHostileChildProcess shows why the admission checks exist: with the
// source limits lifted, nested source kills the process running the
// in-process executor (in a child test process), while the isolated
// executor contains it as a worker crash, and the default limits reject it
// before goja sees it.
func TestHostileChildProcess(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("spends several seconds overflowing a Go stack; the run without -race covers it")
	}
	if name := os.Getenv("LOOM_SANDBOX_TEST_KILLER"); name != "" {
		e, err := NewInProcess(InProcessConfig{Limits: Limits{SourceBytes: 4 << 20, Nesting: 1 << 30, Timeout: time.Minute}})
		require.NoError(t, err)
		_, _ = e.Run(context.Background(), processKillers[name])
		t.Fatal("the process survived")
		return
	}
	for name, code := range processKillers {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostileChildProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), "LOOM_SANDBOX_TEST_KILLER="+name)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the child must die")
			require.Contains(t, string(out), "stack overflow")

			iso, err := NewIsolated(IsolatedConfig{Limits: Limits{SourceBytes: 4 << 20, Nesting: 1 << 30, Timeout: 20 * time.Second}, Concurrency: 1})
			require.NoError(t, err)
			defer iso.Close()
			_, err = iso.Run(context.Background(), code)
			require.ErrorIs(t, err, ErrWorkerCrashed)
			require.ErrorIs(t, err, ErrStackOverflow)
			res, err := iso.Run(context.Background(), "1+1")
			require.NoError(t, err)
			require.JSONEq(t, "2", string(res.Value))

			ip, err := NewInProcess(InProcessConfig{})
			require.NoError(t, err)
			_, err = ip.Run(context.Background(), code)
			require.ErrorIs(t, err, ErrCodeTooLarge)
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
