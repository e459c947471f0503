//go:build linux

package hostile

import (
	"strings"
)

// snippet is one hostile snippet a model sends to evaluateJs: a class of
// the attack and fault catalogue (shared/research/sandbox.md §2) or a
// native-recursion case of the sandbox's recursion tests.
type snippet struct {
	row  int // the catalogue's row; 0 for native recursion
	name string
	code string
	// told holds what the model must be told (any one, in lower case):
	// words naming the error kind. Empty when the snippet succeeds.
	told []string
	// value, when set, is in the result of a snippet that succeeds.
	value string
	// handful marks the representative cases every entry point runs.
	handful bool
	// atLimit marks a snippet that can only end at its time limit (a loop,
	// a wait): it runs under shortLimit, as what it checks does not depend
	// on how long the limit is.
	atLimit bool
}

// The sandbox time limits the snippets run under. longLimit leaves a
// snippet that ends another way (a memory or depth limit, an error, a
// value) time to get there on a loaded machine under the race detector;
// shortLimit is for the snippets that spin or wait until the limit, whose
// every second is a second of a worker's CPU or of the test's time.
const (
	longLimit  = "2s"
	shortLimit = "500ms"
)

// limit is the sandbox time limit s runs under.
func (s snippet) limit() string {
	if s.atLimit {
		return shortLimit
	}
	return longLimit
}

// Words that name an error kind in the message the model gets.
var (
	tookTooLong  = []string{"time limit"}
	tooMuchMem   = []string{"memory"}
	tooDeep      = []string{"recursed too deeply", "call stack"}
	outputTooBig = []string{"too large", "output limit"}
	thrown       = []string{"error"}
)

// or joins the words of several kinds: a case that may end either way
// (a memory bomb may reach the time limit first on a loaded machine).
func or(kinds ...[]string) []string {
	var out []string
	for _, k := range kinds {
		out = append(out, k...)
	}
	return out
}

// catalogue is every class a model's snippet can express: rows 1–11, 12
// (checked by the clean run after it), 13, 17, 18, 19, 21–27 and 30, and
// the native recursion that kills a worker.
func catalogue() []snippet {
	deep := "let a=[];for(let i=0;i<1e5;i++)a=[a];"
	return []snippet{
		{row: 1, name: "infinite loop", code: `for(;;){}`, told: tookTooLong, handful: true, atLimit: true},
		{row: 1, name: "loop that catches its interrupt", code: `for(;;){ try { for(;;){} } catch(e) {} finally { for(;;){} } }`, told: tookTooLong, atLimit: true},
		{row: 2, name: "infinite recursion", code: `function f(){return f()+1}; f()`, told: tooDeep},
		{row: 2, name: "recursion that catches the overflow", code: `function f(){ try { return f() } catch(e) { return f() } }; f()`, told: tooDeep},
		{row: 3, name: "JS-level memory bomb", code: `const a=[];for(;;)a.push(new Array(1e4).fill(a.length))`, told: or(tooMuchMem, tookTooLong), handful: true},
		{row: 4, name: "one huge string", code: `'x'.repeat(2**30).length`, told: tooMuchMem},
		{row: 4, name: "one huge ArrayBuffer", code: `new Uint8Array(new ArrayBuffer(2**32)).fill(1).length`, told: or(tooMuchMem, tookTooLong)},
		{row: 5, name: "string doubling", code: `let s='x';for(;;)s+=s`, told: or(tooMuchMem, tookTooLong)},
		{row: 6, name: "quadratic string building", code: `let s='';for(let i=0;i<1e7;i++)s+='abc';s.length`, told: or(tookTooLong, tooMuchMem), atLimit: true},
		{row: 7, name: "regexp backtracking", code: `/^(a+)+(?=b)/.test('a'.repeat(40)+'c')`, told: tookTooLong, atLimit: true},
		{row: 8, name: "deeply nested source", code: strings.Repeat("[", 3e4) + strings.Repeat("]", 3e4), told: []string{"nest"}, handful: true},
		{row: 9, name: "eval of nested source", code: `eval('['.repeat(3e5)+']'.repeat(3e5))`, told: []string{"evalerror"}},
		{row: 9, name: "function constructor route", code: `(()=>0).constructor('return 1')()`, told: []string{"evalerror"}},
		{row: 10, name: "String of deep data", code: deep + `String(a)`, told: tooDeep},
		{row: 10, name: "JSON.stringify of deep data", code: deep + `JSON.stringify(a)`, told: []string{"nested more than"}},
		{row: 10, name: "deep data as the result", code: deep + `a`, told: or(outputTooBig, []string{"nested more than"})},
		{row: 11, name: "huge result", code: `'x'.repeat(1e7)`, told: outputTooBig, handful: true},
		{row: 11, name: "console flood", code: `for(let i=0;i<1e5;i++)console.log('line', i); 'done'`, value: "done", handful: true},
		{row: 12, name: "prototype pollution and globals", code: `Object.prototype.isAdmin=true; Array.prototype.push=null; globalThis.cache={k:1}; 1`, value: "1"},
		{row: 13, name: "host realm through constructors", code: `this.constructor.constructor('return process')()`, told: []string{"evalerror"}},
		{row: 13, name: "host through a bound constructor", code: `Function.prototype.bind.call(Function.prototype.constructor, null, 'return 1')()`, told: []string{"evalerror"}},
		{row: 17, name: "Function('return this')", code: `Function('return this')()`, told: []string{"evalerror"}},
		{row: 18, name: "microtask flood", code: `function f(){Promise.resolve().then(f)}; f()`, told: tookTooLong, atLimit: true},
		{row: 18, name: "doubling microtask flood", code: `function f(){Promise.resolve().then(f);Promise.resolve().then(f)}; f()`, told: or(tookTooLong, tooMuchMem)},
		{row: 18, name: "awaiting forever", code: `await new Promise(() => {})`, told: []string{"never settled"}},
		{row: 19, name: "timers", code: `setTimeout(() => {}, 0)`, told: []string{"timers"}},
		{row: 19, name: "killing the worker through process", code: `process.kill(process.pid, 'SIGKILL')`, told: []string{"process"}, handful: true},
		{row: 19, name: "exiting the worker", code: `(globalThis.process || globalThis.Deno || {exit(){ throw new Error('no exit') }}).exit(1)`, told: thrown},
		{row: 21, name: "throw null", code: `throw null`, told: []string{"not an error"}},
		{row: 21, name: "throw Symbol()", code: `throw Symbol('s')`, told: []string{"not an error"}},
		{row: 22, name: "thrown object whose toString loops", code: `throw {toString(){for(;;){}}}`, told: []string{"not an error"}},
		{row: 22, name: "Error whose message getter loops", code: `const e=new Error('x'); Object.defineProperty(e,'message',{get(){for(;;){}}}); throw e`, told: thrown},
		{row: 23, name: "result whose toString loops", code: `({toString(){for(;;){}}, valueOf(){for(;;){}}})`, value: "$function"},
		{row: 23, name: "result with a throwing getter", code: `({get a(){throw 1}, b:2})`, value: "$accessor"},
		{row: 24, name: "Proxy result with looping traps", code: `new Proxy({}, {ownKeys(){for(;;){}}, get(){for(;;){}}})`, value: "Proxy"},
		{row: 25, name: "Symbol result", code: `[Symbol('s'), {[Symbol('k')]: 1, a: 2}]`, value: "$symbol"},
		{row: 26, name: "huge BigInt", code: `2n**(2n**30n)`, told: or(tooMuchMem, tookTooLong)},
		{row: 27, name: "cyclic result", code: `const a={b:{c:[1]}}; a.b.c.push(a); a`, told: []string{"refers back"}},
		{row: 27, name: "cyclic JSON.stringify", code: `const a={}; a.a=a; JSON.stringify(a)`, told: []string{"typeerror"}},
		{row: 30, name: "sparse join", code: `const a=[]; a.length=2**32-1; a.join().length`, told: or(tookTooLong, tooMuchMem)},
		{row: 30, name: "huge fill", code: `new Array(2**27).fill(0).length`, told: or(tookTooLong, tooMuchMem)},
		{name: "native recursion through toLocaleString", code: `const o={}; o.toString=Object.prototype.toLocaleString; String(o)`, told: tooDeep, handful: true},
		{name: "native recursion through toJSON", code: `const o = {}; o.toJSON = JSON.stringify.bind(null, o); JSON.stringify(o)`, told: tooDeep},
		{name: "native recursion through a name getter", code: `const e = new Error(); Object.defineProperty(e, 'name', {get: Error.prototype.toString.bind(e)}); String(e)`, told: tooDeep},
		{name: "native recursion through Reflect.get", code: `const o = {}; Object.defineProperty(o, 'x', {get: Reflect.get.bind(null, o, 'x')}); o.x`, told: tooDeep},
		// Building the chain is real work: on a loaded machine it may reach
		// the 2 s time limit before the call recurses.
		{name: "bound chain, call", code: `let f = function () { return 1 }; for (let i = 0; i < 1e5; i++) { f = f.bind(null); Object.defineProperty(f, 'name', {value: ''}) } f()`, told: or(tooDeep, tooMuchMem, tookTooLong), value: "1"},
	}
}

// handful is the representative cases run through every entry point.
func handful() []snippet {
	var out []snippet
	for _, s := range catalogue() {
		if s.handful {
			out = append(out, s)
		}
	}
	return out
}

// probeCode is the clean snippet after a hostile one: it must work and see
// none of the hostile snippet's state.
const probeCode = `[typeof globalThis.cache, ({}).isAdmin === undefined, [1].push(2), 6*7]`

// probeResult is probeCode's result.
const probeResult = `["undefined",true,2,42]`

// goRuntimeText is text that must never reach a model or a user: a Go
// crash, or the runtime's words for one.
var goRuntimeText = []string{"goroutine ", "fatal error", "runtime:", "panic:", "stack exceeds", ".go:"}
