// Package sandbox runs untrusted, LLM-written JavaScript with goja. It is
// the executor contract: [Executor], [Limits], [Result], [Error] and its
// kinds, admission ([Check]), the host tool types ([Toolbox]) and the two
// executors' constructors. The evaluateJs tool that exposes an executor to
// models is package [github.com/loomwork/loom/sandbox/jstool].
//
// # Two tiers, one runner
//
// An [Executor] runs code and returns its [Result]. Two executors share one
// hardened runner:
//
//   - [Isolated] (the default for untrusted code) runs the runner in a pool of
//     warm worker processes with operating-system limits: a cgroup v2
//     memory.max where a delegated cgroup with the memory controller exists
//     ([IsolatedConfig.CgroupParent]), otherwise RLIMIT_AS set to the worker's measured
//     address space plus a budget (an idle Go process already maps about a
//     gigabyte it never uses, so a bare RLIMIT_AS would kill it); GOMEMLIMIT;
//     a GOGC that follows the memory budget (400 at the default, fewer
//     collections of each run's garbage); a Go stack limit lowered to 32 MiB; RLIMIT_NOFILE and RLIMIT_CORE;
//     RLIMIT_CPU set before each run to the CPU time used so far plus the
//     run's time limit and grace; an empty environment (no API key reaches
//     a worker). A worker closes every file descriptor above 2 it
//     inherited, dies with its parent (Pdeathsig) and, where the kernel
//     allows, runs in its own user, network, mount, PID, IPC and UTS
//     namespaces with an empty read-only root: no network interface, no
//     file of the host's, no privilege over the host. Once set up, a worker
//     (Linux on amd64 or arm64) puts itself under a seccomp allowlist of
//     the system calls the Go runtime needs: no open, exec, socket or
//     ptrace. When the kernel refuses the namespaces or the filter, the
//     executor says so once (slog) and the workers run without them;
//     [Isolated.Namespaces] and [Isolated.Seccomp] report which.
//     The parent kills a worker with SIGKILL when a run passes its time
//     limit plus grace, and replaces any worker that dies. A warm worker
//     collects its heap after a run that grew it, so each run's memory
//     budget holds whatever ran before. A run costs a few hundred
//     microseconds more than in process.
//   - [InProcess] runs the runner in the calling process. It takes tens of
//     microseconds per run and contains accidental faults (loops, recursion,
//     runaway allocation, huge output), but see the threat model below.
//
// # Semantics
//
// Code runs as a plain script (no modules) on a fresh runtime: nothing a
// run does (globals, changed prototypes) is seen by the next run. The value
// of the final expression is the result. A Promise result is awaited, and
// top-level await works: code that uses await is wrapped in an async
// function that returns its final expression statement. Promise jobs run to
// completion inside the time limit; a final Promise that never settles is
// an error ([KindUnsettledPromise]), since there are no timers or I/O.
//
// console.log, info, warn, error, debug, trace and dir are captured as
// [LogLine]s with their level; strings print as they are, other values as
// their JSON form.
//
// # JSON forms
//
// Result.Value is JSON. Plain objects (own enumerable string-keyed data
// properties, in order), arrays, strings, finite numbers, booleans and null
// are as in JSON; undefined is omitted from objects and null in arrays, and
// an undefined final value sets Result.Undefined with Value null. The
// rest are tagged objects:
//
//	BigInt            {"$bigint":"123"}
//	NaN, ±Infinity    {"$number":"NaN"}, {"$number":"Infinity"}, {"$number":"-Infinity"}
//	Map               {"$map":[[key, value], …]}
//	Set               {"$set":[value, …]}
//	Date              {"$date":"2024-01-02T03:04:05.000Z"} (or "Invalid Date")
//	RegExp            {"$regexp":"/a+/g"}
//	Error             {"$error":{"name":"TypeError","message":"…"}}
//	function, class   {"$function":"name"}
//	Symbol            {"$symbol":"description"}
//	accessor property {"$accessor":"get"} (getters are never called)
//	Promise           {"$promise":"pending"} (nested; a final Promise is awaited)
//	Proxy             {"$object":"Proxy"} (its traps are never called)
//	boxed primitive   {"$object":"Number"}, also for arguments objects
//
// Typed arrays are arrays of numbers. Other objects (WeakMap, ArrayBuffer,
// iterators …) export their own enumerable properties, usually {}. A value that refers to itself is an
// error ([KindCyclicValue]) naming the path; shared references that are not
// cycles are exported at each place.
//
// # Errors
//
// Every failure is an [*Error] whose Kind says what happened and whose
// message is written for the model that wrote the code: what went wrong,
// where (line, column, JS stack) and how to fix it. Match kinds with
// errors.Is and the sentinels ([ErrSyntax], [ErrException],
// [ErrThrownValue], [ErrTimeout], [ErrMemoryLimit], [ErrStackOverflow],
// [ErrOutputTooLarge], [ErrCodeTooLarge], [ErrNestingTooDeep],
// [ErrUnsettledPromise], [ErrCyclicValue], [ErrWorkerCrashed],
// [ErrCanceled], [ErrInternal]); read details with errors.As. A timeout
// caused by the caller's context deadline also matches
// context.DeadlineExceeded; a worker crash caused by memory or stack also
// matches ErrMemoryLimit or ErrStackOverflow. On failure Run also returns a
// Result with the console output logged before it.
//
// # Limits and defaults
//
// [Limits] holds every per-run limit; zero fields take these defaults:
//
//	Timeout      5s       wall time: code, Promise jobs and result conversion
//	Grace        1s       after the timeout, before the run is given up / the worker killed
//	Memory       256 MiB  heap growth (watchdog); in workers also the OS limit's budget
//	CallStack    2000     nested JS calls
//	SourceBytes  64 KiB   code size, checked before parsing
//	Nesting      256      bracket depth of the code (and of JSON.parse input)
//	ResultBytes  256 KiB  JSON form of the final value
//	ResultDepth  128      nesting of the final value (and of JSON.stringify input)
//	LogBytes     64 KiB   console output kept, then a truncation marker
//	LogLines     1000     console lines kept
//
// [InProcessConfig.Concurrency] caps runs in progress (default GOMAXPROCS;
// in process a run that was given up keeps its slot until it really ends).
// [InProcessConfig.FixedTime] and [InProcessConfig.RandSeed] make Date and
// Math.random reproducible. Dates are always in UTC, whatever the host's time zone.
//
// # Hardening
//
// Both executors admit code the same way before goja sees it (Isolated in
// the parent, before a worker does): it is checked for size and valid
// UTF-8 and scanned in linear time for bracket nesting and over-long
// operator chains: goja's parser and
// compiler recurse without limit, and deep nesting kills the process with a
// fatal, unrecoverable stack overflow. The scan is a tokenizer, so where
// JavaScript's grammar needs a parser to tell a regexp from a division it
// can be misled; the size limit bounds what it can miss (at the default
// 64 KiB, well under the Go stack's 1 GB). Between goja's parser and
// compiler, loom's pass over the syntax tree turns off goja's constant
// folding, which computes constant expressions while compiling, outside any
// limit (2n ** (3n ** 20n) is 13 bytes; the operands of && are evaluated
// twice per level): every expression is computed when the code runs, under
// the run's limits. The same pass bounds the compiled size of the code's
// regexp literals together, since Go's regexp expands counted repeats
// (a 3.3 KB /(?:aaa…){999}/ allocates 650 MB), and refuses more with
// [KindMemory].
// loom runs goja as published (github.com/dop251/goja), through its public
// API only. goja counts only the calls its VM makes against the call stack
// limit: native built-ins calling each other from Go (o.toString =
// Object.prototype.toLocaleString; String(o)), and some deep Proxy chains,
// recurse on the Go stack until Go's fatal stack overflow, which no
// recover catches and which kills the process. In a worker that is a dead
// worker, reported as [KindStackOverflow] ("the code recursed too deeply",
// without the Go runtime's report; errors.Is matches [ErrWorkerCrashed]
// too) and replaced; in process it kills the host.
// Each run gets a fresh goja.Runtime with a call stack limit;
// eval, Function and the constructors of function, async function and
// generator function prototypes throw; Array.prototype.join, toString and
// toLocaleString are wrapped in JS frames so that stringifying deep arrays
// meets the call stack limit instead of the Go stack; JSON.stringify,
// JSON.parse and Array.prototype.flat are wrapped to bound the depth of
// the data they recurse on. No host object is exposed: no require,
// process, timers, network or files. The time limit interrupts the code,
// the Promise job queue and the conversion of the result, which a JS
// exporter does inside the run without calling getters, toString, toJSON or
// Proxy traps, with built-ins taken before the code could replace them;
// Maps, Sets, typed arrays, RegExps and Symbol descriptions are read by
// calling, from Go, the built-in forEach and getters taken before the code
// ran. The exporter reads properties through
// Object.getOwnPropertyDescriptor, whose result goja builds by assignment:
// when Object.prototype has a property named like a descriptor field, it
// refuses with [KindUnreadableValue] rather than report a falsified value.
// Array.prototype.sort sorts a private copy, as the spec's
// SortIndexedProperties does. goja errors are told apart with a type
// switch, never errors.As (Exception.Unwrap reads the thrown value's
// properties, which can run the code). The host never calls String, Export or Error on a
// sandbox value; names, messages, Symbol descriptions and console strings
// are cut to their limits before they are copied, and every host loop over
// a length the code controls checks the deadline. A heap watchdog (runtime/metrics, every 10 ms) interrupts runs
// whose heap growth passes the memory limit.
//
// # Threat model
//
// The isolated executor is the boundary for untrusted code, and loom's
// default everywhere it picks one (codeexec.New, loom/v1 files, the loom
// command and the example programs). Any snippet can kill a process that
// runs it in process: a Go stack overflow (native recursion, a deep Proxy,
// bound-function or prototype chain) is fatal, recover cannot catch it,
// and no host-side limit prevents it. [InProcess] is for trusted code
// only; loom runs a model's code in process only when the user says the
// code is trusted (--trusted-code, and trusted: true on a file's sandbox).
//
// goja is not a security boundary against resource exhaustion, and
// [InProcess] inherits its limits. In process, loom contains infinite
// loops, deep JS recursion, runaway JS-level allocation, deep
// data, huge results and console floods, and the host never runs the
// code's getters, traps or replaced built-ins. These it cannot stop:
// built-ins that run in Go without checking for interrupts (a huge
// 'x'.repeat, a sparse array's join, a backtracking regular expression
// with lookaround or back-references, a huge BigInt, new Array(2**27).fill)
// keep a CPU busy after the time limit, until they return, which may be
// never; the run is given up at the deadline plus grace, but its goroutine
// and its slot stay taken. Native recursion (above) kills the process.
// repeat, padStart/padEnd, split, String and Array concat, join (its
// separators), fill, and in process the ArrayBuffer and typed array
// constructors (in a worker, the process's memory limit bounds those) are
// wrapped at setup to check the size they were asked for against the
// memory limit before the built-in runs (a catchable RangeError; an
// uncaught refusal is a [KindMemory] error); other single huge allocations
// (string + of huge operands, a replace expansion, the elements a join
// concatenates, JSON.stringify of wide data, BigInt) are not
// stopped by the watchdog, which only sees them after they happened, and
// can exhaust the process's memory. The watchdog sees the whole process's
// heap, so concurrent runs can be stopped for one another's growth. Code
// in process runs with the host's privileges, guarded only by goja
// exposing no host object. Use InProcess for trusted code, development and
// speed, not for code written by a model an attacker may steer.
//
// [Isolated] contains all of these: the worker's memory is capped by the
// kernel, its CPU by RLIMIT_CPU and the parent's SIGKILL, and a fatal Go
// error ends only the worker; the run gets [KindStackOverflow],
// [KindMemory], [KindTimeout] or [KindWorkerCrashed] and the next run gets
// a fresh worker.
// Beyond goja, which exposes no host object, a worker has its own
// namespaces where the kernel allows (no network, an empty read-only file
// system, no privilege over the host), no inherited descriptors and no
// environment, it dies with the host, and a seccomp allowlist keeps a
// worker whose Go runtime an exploit of goja took over from opening files,
// executing programs or using the network. The allowlist still includes
// what the Go runtime needs (memory mapping, threads, futexes, signals),
// and the worker shares the host's kernel. A worker's Go stack is capped
// at 32 MiB, so native recursion ends there quickly. In -race test binaries workers
// have no filter and no RLIMIT_AS. Where the namespaces or the filter are
// refused, run the host under its own user and container if the code's
// authors are adversarial.
//
// # Differences from Node
//
// loom installs, at runtime setup, what goja's public API allows to make
// results right: named capture groups (a match's groups, $<name> in a
// replacement string), Number-to-String by Go's shortest round-trip digits
// in Number.prototype.toString, String(n) and every number the host
// exports or logs, Number.prototype.toLocaleString and Date's string forms
// as Node writes them in en-US and UTC, the ES2025 Set methods,
// Object.groupBy and Map.groupBy, String.prototype.isWellFormed and
// toWellFormed, and Error.isError. All of these but Number formatting, and
// on a host in UTC (a worker always is) Date's string forms too, are
// installed before a run whose code can reach them, as its text shows
// (it names RegExp, match, matchAll, Map, Set, Date, groupBy, WellFormed
// or isError, or reads globals by a computed name) or its syntax tree (a
// regexp literal), so that other runs do not pay for creating them; code
// that reaches them in ways its text does not show (({}).constructor and
// computed names) finds goja's own forms, and a Map, Set or RegExp it
// returns is refused with an error. TestNodeConformance compares the sandbox with Node on
// about 250 snippets; what still differs:
//
//	Feature                                 What the sandbox does
//	'' + n, `${n}`, [n].join(),             goja's formatting: a few doubles end in a wrong digit
//	JSON.stringify(n)                       (0.7016570306969449 as 0.701657030696945); use String(n)
//	'\uff5e' < '\ud83d\ude00', sort()       strings compare by code point, not UTF-16 unit
//	Intl, locales and options               none: toLocale* and localeCompare ignore them
//	for await                               a SyntaxError; await in a plain loop
//	Uint8Array.fromBase64 and friends       missing
//
// The coder's default instructions (codeexec) name these, and the errors
// they raise say what to use instead.
//
// # Design note: native recursion and the proposal for goja
//
// The limit the in-process executor lacks belongs in goja: one counter of
// native calls in the VM, raised by every call of a native function from
// Go (a getter, toString, valueOf, toJSON, a sort comparator, a Proxy trap
// or a Proxy forwarding to its target, a bound function reaching its
// target, isArray looking through a Proxy) and lowered on return, checked
// together with the JS call stack against SetMaxCallStackSize, so that
// deep native recursion throws goja's StackOverflowError like deep JS
// recursion does. Three smaller changes would let the host read less
// defensively: descriptor and iterator-result objects built with
// CreateDataProperty rather than assignment (so accessors on
// Object.prototype neither run nor hide fields), an Exception.Unwrap that
// runs no script code, and a sort that sorts a copy. goja's maintainer has
// declined native recursion limits as out of scope, and a patched copy
// cannot ship to programs that import loom, so loom uses goja as published
// and the worker process is the boundary.
//
// # Host tools
//
// [InProcess.RunWithTools] and [Isolated.RunWithTools] offer a [Toolbox]
// of [HostTool]s to the code as async functions of the global tools, a
// frozen object with no prototype: const r = await tools.get_sum({a: 2,
// b: 40}). Each call runs on the host, on a goroutine of its own; in a
// worker, the call is a message to the parent over the worker's pipe and
// the parent runs it, after checking that the call belongs to the run in
// flight and keeps to its limits (a worker that breaks them is killed).
// The argument's JSON form is checked against the tool's input schema
// before the call; the result is decoded into plain JS data. Every
// failure rejects the call's Promise, so the code can catch it: a
// TypeError for invalid arguments, a RangeError past a limit, an Error
// named ToolError when the tool fails (see [CallError]). A run starts at
// most [CallLimits].MaxCalls calls, runs at most MaxInFlight at once
// (later ones wait in order), passes at most Limits.ResultBytes in one
// argument or result and a quarter of Limits.Memory in all; its time
// limit covers the calls, and a call after the run ended is refused.
// Calls still pending when the script ends are awaited before the result
// is taken. jstool.New with jstool.Config.Toolsets offers agent toolsets this
// way, each call a nested run of the evaluateJs run; jstool.Signature and
// jstool.Declarations describe the functions to a model.
//
// # The worker hook
//
// Isolated starts its workers by re-executing the program's own binary
// (os.Executable) with LOOM_SANDBOX_WORKER=1. The program must call
// [ServeWorkerIfChild] first thing in main, which serves runs in a worker
// and returns at once otherwise:
//
//	func main() {
//		sandbox.ServeWorkerIfChild()
//		exec, err := sandbox.NewIsolated()
//		…
//	}
//
// Tests that use Isolated call it first thing in TestMain. NewIsolated
// refuses to start when the hook was not called, rather than run main
// again. Alternatively, [IsolatedConfig.WorkerCommand] names a dedicated worker binary,
// such as one built from github.com/loomwork/loom/sandbox/cmd/loom-jsworker.
// The worker protocol is JSON lines on the worker's stdin and stdout,
// described in internal/worker/wire.go.
//
// # Packages
//
// The sandbox is split by idea; only sandbox and jstool are for users:
//
//   - sandbox: the contract above, and thin constructors over the two
//     internal packages. It imports nothing of loom's agent layer.
//   - sandbox/jstool: the evaluateJs tool, an agent whose input is
//     {"code": "…"} (jsCode is accepted too), validated against its schema,
//     and whose output is {"result": …, "logs": […]}; its description
//     teaches a model the rules above, and a sandbox failure is the tool's
//     error, which an AI agent's tool loop returns to the model to correct.
//     With jstool.Config.Toolsets the same tool runs code mode. jstool also
//     holds the TypeScript signatures of host tools, the admission
//     guardrail and the code-mode call depth.
//   - sandbox/internal/jsrt: the goja runtime (admission and compilation,
//     lockdown, intrinsics, allocation guards, Date, number formatting,
//     polyfills, named groups, console, the kit, the exporter, host tool
//     Promises) and the in-process executor. It declares the contract's
//     types, which sandbox re-exports as aliases.
//   - sandbox/internal/worker: the isolated executor's pool, the worker
//     protocol and main loop, and the OS layers (limits, cgroups, seccomp,
//     namespaces, death with the parent).
//   - sandbox/internal/jsscan: the source prescan admission runs.
//   - sandbox/cmd/loom-jsworker: a dedicated worker binary.
package sandbox
