package jsrt

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
)

// stopReason is why a run was interrupted from outside.
type stopReason struct {
	kind  Kind
	cause error
}

// job is one run: a fresh runtime owned by the goroutine that calls
// execute. Only stop may be called from other goroutines.
type job struct {
	cfg     *Config
	lim     Limits
	code    string
	timeout time.Duration // the effective time limit, for messages

	rt     *goja.Runtime
	reason atomic.Pointer[stopReason]

	console console
	kit     kit
	in      intrinsics // built-ins taken before the code ran
	// proxied are the built-in constructors behind Proxies, and
	// hasInstance their shared Symbol.hasInstance (wrapConstructor).
	proxied     []proxiedCtor
	hasInstance *goja.Object

	groupCache    map[string]regexpGroupInfo // named groups of regexp sources
	sink          *sink
	pos           posMap
	rejected      []*goja.Promise
	tools         *jsTools     // the host tools offered to the code, or nil
	thrower       *goja.Object // what eval, Function and the locked constructors are
	locked        funcKinds    // the kinds whose constructor is locked (lockFunctionKinds)
	collections   bool         // Map's and Set's built-ins are taken and polyfilled (installCollections)
	regexps       bool         // RegExp's built-ins are taken and named groups installed (installRegExp)
	polyfills     bool         // Object.groupBy, isWellFormed, toWellFormed and Error.isError are defined (installPolyfills)
	apply         *goja.Object // the polyfills' apply (applyFunc)
	dateInstalled bool         // Date's string forms and local time are UTC (installDate)
	ready         bool         // setup is done (a spare set up ahead)
}

func newJob(cfg *Config, code string, timeout time.Duration) *job {
	return &job{
		cfg:     cfg,
		lim:     cfg.Limits,
		code:    code,
		timeout: timeout,
		rt:      goja.New(),
		console: console{maxBytes: cfg.Limits.LogBytes, maxLines: cfg.Limits.LogLines},
	}
}

// stop interrupts the run; the first reason wins. Safe from any goroutine.
func (j *job) stop(kind Kind, cause error) {
	r := &stopReason{kind: kind, cause: cause}
	if j.reason.CompareAndSwap(nil, r) {
		j.rt.Interrupt(r)
		if j.tools != nil {
			j.tools.wakeUp()
		}
	}
}

// execute compiles and runs the code and converts its value. It never
// panics. On failure it returns the console output so far with the error.
func (j *job) execute() (res *Result, err error) {
	defer func() {
		if x := recover(); x != nil {
			res, err = j.partial(), panicError(x, j.lim.Memory)
		}
	}()
	c, err := compileCode(j.code, j.lim)
	if err != nil {
		return j.partial(), err
	}
	prog := c.prog
	j.pos = c.pos
	if j.reason.Load() != nil { // stopped while compiling
		return j.partial(), j.stoppedError()
	}
	if err := j.prepare(c.facts); err != nil {
		if j.reason.Load() != nil { // stopped while the runtime was prepared for the code
			return j.partial(), j.stoppedError()
		}
		return j.partial(), &Error{Kind: KindInternal, Message: fmt.Sprintf(
			"Internal sandbox error while preparing the runtime: %s. This is not caused by your code; run it again.", goErrorText(err))}
	}
	v, err := j.rt.RunProgram(prog)
	if err != nil {
		return j.partial(), j.runError(err)
	}
	if err := j.drainTools(); err != nil {
		return j.partial(), err
	}
	final := asPromise(v)
	if final != nil {
		switch final.State() {
		case goja.PromiseStatePending:
			return j.partial(), &Error{Kind: KindUnsettledPromise, Message: "The code's final value is a Promise that never settled: nothing resolved or rejected it. " +
				"There are no timers, network or other events in this sandbox (no setTimeout, no fetch), so a Promise can only settle from the code itself. " +
				"Make sure every Promise you await is resolved, or return the value directly."}
		case goja.PromiseStateRejected:
			return j.partial(), j.thrown(final.Result(), nil, !j.pos.wrapped)
		default:
			v = final.Result()
		}
	}
	j.reportRejections(final)
	if v == nil || goja.IsUndefined(v) {
		return &Result{Value: json.RawMessage("null"), Undefined: true, Logs: j.console.lines}, nil
	}
	s := &sink{max: j.lim.ResultBytes, maxDepth: j.lim.ResultDepth}
	if s.primitive(v) {
		return &Result{Value: s.buf, Logs: j.console.lines}, nil
	}
	s, err = j.convert(j.kit.export, v, s)
	switch {
	case s.err != nil:
		return j.partial(), s.err
	case err != nil:
		return j.partial(), j.conversionError(err)
	case !json.Valid(s.buf):
		return j.partial(), &Error{Kind: KindInternal, Message: "Internal sandbox error: the result's JSON form is invalid. Return plain data (objects, arrays, strings, numbers)."}
	}
	return &Result{Value: s.buf, Logs: j.console.lines}, nil
}

// panicError classifies a Go panic that escaped goja. goja lets some
// allocation failures of built-ins escape as Go runtime errors (for
// example 'x'.repeat(7**20) panics with "makeslice: len out of range"):
// those are the code asking for too much memory.
func panicError(x any, memLimit int64) *Error {
	if re, ok := x.(runtime.Error); ok {
		msg := re.Error()
		for _, s := range []string{"makeslice", "growslice", "makemap", "out of memory", "cap out of range"} {
			if strings.Contains(msg, s) {
				e := MemoryError(memLimit, nil)
				e.Message = "RangeError: the code asked for a value too large to allocate (" + msg + "). " + e.Message
				return e
			}
		}
	}
	text := fmt.Sprintf("%T", x)
	switch v := x.(type) {
	case string:
		text = v
	case error:
		text = goErrorText(v)
	}
	return &Error{Kind: KindInternal, Message: "Internal sandbox error: " + text + ". This is not caused by your code; run it again."}
}

// goErrorText is an error's text, or only its type for goja's errors, whose
// Error method formats a JS value and can run the code's toString.
func goErrorText(err error) string {
	switch err.(type) {
	case *goja.Exception, *goja.CompilerSyntaxError, *goja.CompilerReferenceError:
		return fmt.Sprintf("%T", err)
	}
	return err.Error()
}

// partial is the Result returned with an error: the console so far.
func (j *job) partial() *Result {
	return &Result{Logs: j.console.lines}
}

// setup hardens the fresh runtime and defines the console and the kit. It
// depends on the executor's configuration only, never on the run's code,
// time limit or tools, so it can run ahead of the run (spare.go).
func (j *job) setup() error {
	rt := j.rt
	rt.SetMaxCallStackSize(j.lim.CallStack)
	if t := j.cfg.FixedTime; t != nil {
		fixed := *t
		rt.SetTimeSource(func() time.Time { return fixed })
	}
	if seed := j.cfg.RandSeed; seed != nil {
		r := rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15))
		rt.SetRandSource(r.Float64)
	}
	rt.SetPromiseRejectionTracker(j.trackRejection)
	if err := j.captureIntrinsics(); err != nil {
		return err
	}
	if err := j.lockdown(); err != nil {
		return err
	}
	if err := j.guardAllocations(); err != nil {
		return err
	}
	if !hostInUTC() {
		// Hiding the host's zone is a guarantee, which no reading of the
		// source could keep (reachesGlobal): Date is made UTC in every
		// runtime. In UTC, only its string forms would differ from Node's,
		// so it waits for code that can reach it.
		j.dateInstalled = true
		if err := j.installDate(); err != nil {
			return err
		}
	}
	if err := j.installNumberFormat(); err != nil {
		return err
	}
	if err := j.installConsole(); err != nil {
		return err
	}
	return j.newKit()
}

// prepare sets up the runtime unless it was set up ahead, makes the
// built-ins setup leaves out that the code can reach (locking the
// constructors its kinds of function lead to), and defines the run's host
// tools.
func (j *job) prepare(f facts) error {
	if !j.ready {
		if err := j.setup(); err != nil {
			return err
		}
		j.ready = true
	}
	if err := j.lockFunctionKinds(f.kinds); err != nil {
		return err
	}
	if reachesPolyfills(j.code) {
		if err := j.installPolyfills(); err != nil {
			return err
		}
	}
	if f.regexpLiterals || reachesRegExp(j.code) {
		if err := j.installRegExp(); err != nil {
			return err
		}
	}
	if reachesCollections(j.code) {
		if err := j.installCollections(); err != nil {
			return err
		}
	}
	if !j.dateInstalled && reachesGlobal(j.code, "Date") {
		j.dateInstalled = true
		if err := j.installDate(); err != nil {
			return err
		}
	}
	if j.tools != nil {
		return j.installTools()
	}
	return nil
}

// maxTrackedRejections bounds the unhandled rejections reported.
const maxTrackedRejections = 16

func (j *job) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	switch op {
	case goja.PromiseRejectionReject:
		if len(j.rejected) < maxTrackedRejections {
			j.rejected = append(j.rejected, p)
		}
	case goja.PromiseRejectionHandle:
		for i, q := range j.rejected {
			if q == p {
				j.rejected = append(j.rejected[:i], j.rejected[i+1:]...)
				break
			}
		}
	}
}

// reportRejections logs the rejections nothing handled, as node warns.
func (j *job) reportRejections(final *goja.Promise) {
	for _, p := range j.rejected {
		if p == final || p.State() != goja.PromiseStateRejected {
			continue
		}
		text := j.describeBrief(p.Result())
		j.console.add(LevelError, "Uncaught (in promise) "+text, false)
	}
}

// describeBrief is a one-line description of a thrown value, for the logs.
func (j *job) describeBrief(v goja.Value) string {
	s, err := j.convert(j.kit.describe, v, &sink{max: 1024, maxDepth: 16, truncate: true})
	if err != nil && !s.truncated {
		return "(a value that could not be described)"
	}
	if s.isError {
		return errorTitle(s.errName, s.errMsg)
	}
	if goja.IsUndefined(v) {
		return "undefined"
	}
	return string(s.buf)
}

func errorTitle(name, msg string) string {
	if msg == "" {
		return name
	}
	return name + ": " + msg
}

// isUncatchable reports whether err is an interrupt or a stack overflow,
// which must keep unwinding. A type switch, not errors.As: goja's
// Exception.Unwrap reads the thrown value's properties, which may run the
// code's getters and Proxy traps.
func isUncatchable(err error) bool {
	switch err.(type) {
	case *goja.InterruptedError, *goja.StackOverflowError:
		return true
	}
	return false
}

// runError classifies an error from running the code.
func (j *job) runError(err error) error {
	switch e := err.(type) {
	case *goja.InterruptedError:
		return j.stoppedError()
	case *goja.StackOverflowError:
		if j.reason.Load() != nil {
			return j.stoppedError()
		}
		return j.stackOverflow(framesOf(e.Stack()))
	case *goja.Exception:
		if j.reason.Load() != nil {
			return j.stoppedError()
		}
		return j.thrown(e.Value(), framesOf(e.Stack()), false)
	default:
		return &Error{Kind: KindInternal, Message: fmt.Sprintf(
			"Internal sandbox error: %T. This is not caused by your code; run it again.", err)}
	}
}

// conversionError classifies a failure of the exporter.
func (j *job) conversionError(err error) error {
	if j.reason.Load() != nil {
		return j.stoppedError()
	}
	switch e := err.(type) {
	case *goja.StackOverflowError:
		return j.stackOverflow(nil)
	case *goja.Exception:
		t := j.thrown(e.Value(), nil, false)
		t.Message = "The result could not be converted to JSON because a built-in the code replaced threw: " + t.Message
		return t
	}
	return &Error{Kind: KindInternal, Message: "Internal sandbox error while converting the result. Return plain data (objects, arrays, strings, numbers)."}
}

// stoppedError is the error for a run stopped by its deadline, the
// memory watchdog or its caller.
func (j *job) stoppedError() *Error {
	r := j.reason.Load()
	if r == nil {
		return &Error{Kind: KindInternal, Message: "Internal sandbox error: the run was interrupted for no recorded reason; run it again."}
	}
	switch r.kind {
	case KindTimeout:
		return TimeoutError(j.timeout, r.cause, false)
	case KindMemory:
		return MemoryError(j.lim.Memory, nil)
	default:
		return &Error{Kind: KindCanceled, Message: "The run was canceled by the caller before the code finished.", cause: r.cause}
	}
}

// TimeoutError is the model-readable time limit error.
func TimeoutError(limit time.Duration, cause error, abandoned bool) *Error {
	var b strings.Builder
	fmt.Fprintf(&b, "Timeout: the code ran longer than its %s time limit and was stopped.", limit)
	if abandoned {
		b.WriteString(" It was inside a built-in operation that cannot be interrupted (such as a huge string repeat or join, a regular expression that backtracks, a huge BigInt, or JSON of very large data).")
	}
	b.WriteString(" Make it do less work: build strings by pushing parts to an array and calling join('') instead of using += in a loop (each += copies the whole string here);" +
		" avoid exponential algorithms, busy-wait loops and regular expressions with nested quantifiers; and work on smaller inputs.")
	return &Error{Kind: KindTimeout, Limit: limit.Milliseconds(), Message: b.String(), cause: cause}
}

// toolWaitTimeoutError is the time limit error of a run stopped while it
// waited for tool calls: the limit covers the calls a snippet awaits, so
// the advice is about the calls, not about the code's own work.
func toolWaitTimeoutError(limit time.Duration, cause error, tools []string) *Error {
	return &Error{Kind: KindTimeout, Limit: limit.Milliseconds(), cause: cause, Message: fmt.Sprintf(
		"Timeout: the code ran longer than its %s time limit and was stopped while it waited for tool calls (%s), which were cancelled. "+
			"The time limit covers the tool calls the code awaits: make fewer or quicker calls, ask each for less, or do the rest in a later snippet.",
		limit, strings.Join(tools, ", "))}
}

// MemoryError is the model-readable memory limit error.
func MemoryError(limit int64, cause error) *Error {
	return &Error{Kind: KindMemory, Limit: limit, cause: cause, Message: fmt.Sprintf(
		"Memory limit: the code used more than %s of memory and was stopped. Process the data in smaller pieces, avoid building huge arrays, strings or objects, and return a summary instead of all the data.",
		FormatBytes(limit))}
}

// stackOverflow is the error for code that recursed past the call stack
// limit.
func (j *job) stackOverflow(frames []frame) *Error {
	e := &Error{Kind: KindStackOverflow, Limit: int64(j.lim.CallStack)}
	e.Stack = j.formatFrames(frames, 6)
	e.Line, e.Column = j.topPosition(frames)
	e.Message = fmt.Sprintf("RangeError: Maximum call stack size exceeded: the code made more than %d nested calls (the limit). "+
		"Use a loop or an explicit stack instead of deep recursion (nested arrays turned into strings also count).", j.lim.CallStack)
	if e.Stack != "" {
		e.Message += "\n" + e.Stack
	}
	return e
}

// thrown describes an uncaught thrown value, inside the run's deadline.
func (j *job) thrown(v goja.Value, frames []frame, rejected bool) *Error {
	s, err := j.convert(j.kit.describe, v, &sink{max: 2048, maxDepth: 16, truncate: true})
	if err == errUnreadable {
		e := s.err
		e.Message = "The code threw a value, and " + strings.ToLower(e.Message[:1]) + e.Message[1:]
		return e
	}
	if err != nil && !s.truncated {
		if j.reason.Load() != nil {
			return j.stoppedError()
		}
		if _, ok := err.(*goja.StackOverflowError); ok {
			return j.stackOverflow(frames)
		}
		s = &sink{}
	}
	prefix := "Uncaught "
	if rejected {
		prefix = "Uncaught (in promise) "
	}
	stack := j.formatFrames(frames, 10)
	if s.isError {
		if stack == "" { // a rejection: the stack the Error captured
			frames = s.errFrames
			stack = j.formatFrames(frames, 10)
		}
		e := &Error{Kind: KindException, Name: s.errName, Stack: stack, Rejected: rejected}
		e.Line, e.Column = j.topPosition(frames)
		var b strings.Builder
		b.WriteString(prefix)
		b.WriteString(errorTitle(s.errName, s.errMsg))
		if stack != "" {
			b.WriteString("\n")
			b.WriteString(stack)
		}
		if hint := exceptionHint(s.errName, s.errMsg); hint != "" {
			b.WriteString("\n")
			b.WriteString(hint)
		}
		e.Message = b.String()
		if s.errName == "RangeError" && strings.Contains(s.errMsg, allocRefusal) {
			e.Kind, e.Limit = KindMemory, j.lim.Memory
		}
		return e
	}
	text := string(s.buf)
	if goja.IsUndefined(v) {
		text = "undefined"
	}
	if s.truncated {
		text += "…"
	}
	e := &Error{Kind: KindThrownValue, Stack: stack, Rejected: rejected}
	e.Line, e.Column = j.topPosition(frames)
	if !s.truncated && json.Valid(s.buf) {
		e.Value = json.RawMessage(s.buf)
	}
	var b strings.Builder
	b.WriteString(prefix)
	fmt.Fprintf(&b, "exception: the code threw a value that is not an Error: %s.", text)
	if stack != "" {
		b.WriteString("\n")
		b.WriteString(stack)
	}
	b.WriteString("\nThrow Error objects (throw new Error('what went wrong')) so the message and stack are reported.")
	e.Message = b.String()
	return e
}

// allocRefusal is in the message of the RangeError the sandbox's wrappers
// of built-ins throw for an allocation past the memory limit (allocguard.go):
// such an uncaught error is a memory error.
const allocRefusal = "more than the memory limit of"

// missingMembers are built-ins the engine lacks, with what to use instead.
var missingMembers = []struct{ name, instead string }{
	{"fromBase64", "decode base64 with a small function of your own (a lookup of the 64 characters, 6 bits each)."},
	{"toBase64", "encode base64 with a small function of your own (a lookup of the 64 characters, 6 bits each)."},
	{"fromHex", "parse pairs of hex digits with parseInt(pair, 16)."},
	{"toHex", "format each byte with b.toString(16).padStart(2, '0')."},
}

// exceptionHint explains errors that come from the sandbox's environment.
func exceptionHint(name, msg string) string {
	if name == "TypeError" {
		for _, m := range missingMembers {
			if strings.Contains(msg, "'"+m.name+"'") {
				return m.name + " is not available in this sandbox's engine: " + m.instead
			}
		}
		return ""
	}
	if name != "ReferenceError" {
		return ""
	}
	for _, g := range []string{"require", "process", "fetch", "setTimeout", "setInterval", "window", "document", "module", "exports", "Buffer", "globalThis.process", "structuredClone", "Intl", "TextEncoder", "queueMicrotask"} {
		if strings.HasPrefix(msg, g+" is not defined") {
			return "This sandbox runs plain JavaScript: only the standard built-ins and console exist (no require, modules, process, timers, network, files, DOM or Intl)."
		}
	}
	return ""
}

// frame is one frame of a JS call stack.
type frame struct {
	name      string
	file      string // "" for a native function
	line, col int
}

// framesOf converts goja's stack frames.
func framesOf(fs []goja.StackFrame) []frame {
	out := make([]frame, 0, len(fs))
	for i := range fs {
		f := &fs[i]
		if f.SrcName() == "<native>" {
			out = append(out, frame{name: f.FuncName()})
			continue
		}
		p := f.Position()
		out = append(out, frame{name: f.FuncName(), file: p.Filename, line: p.Line, col: p.Column})
	}
	return out
}

// maxStackFrames bounds the frames read from an Error's stack text.
const maxStackFrames = 64

// parseStack reads the frames of an Error's stack text, as goja writes it:
// after the first line, one "\tat name (file:line:col(pc))",
// "\tat file:line:col(pc)" or "\tat name (native)" per frame. Lines of any
// other form are skipped.
func parseStack(text string, max int) []frame {
	var out []frame
	for _, l := range strings.Split(text, "\n") {
		if len(out) == max {
			break
		}
		rest, ok := strings.CutPrefix(l, "\tat ")
		if !ok {
			continue
		}
		var f frame
		if i := strings.LastIndex(rest, " ("); i >= 0 && strings.HasSuffix(rest, ")") {
			f.name, rest = rest[:i], rest[i+2:len(rest)-1]
		}
		if rest == "native" {
			out = append(out, f)
			continue
		}
		// file:line:col(pc)
		if i := strings.LastIndexByte(rest, '('); i >= 0 {
			rest = rest[:i]
		}
		c := strings.LastIndexByte(rest, ':')
		if c < 0 {
			continue
		}
		l := strings.LastIndexByte(rest[:c], ':')
		if l < 0 {
			continue
		}
		line, err1 := strconv.Atoi(rest[l+1 : c])
		col, err2 := strconv.Atoi(rest[c+1:])
		if err1 != nil || err2 != nil {
			continue
		}
		f.file, f.line, f.col = rest[:l], line, col
		out = append(out, f)
	}
	return out
}

// formatFrames renders up to max frames of the code's stack, node style,
// with positions in the code as written.
func (j *job) formatFrames(frames []frame, max int) string {
	var b strings.Builder
	shown := 0
	for i := range frames {
		f := &frames[i]
		var line string
		switch {
		case f.file == "":
			name := f.name
			if name == "" || strings.ContainsAny(name, "/.(") { // a Go function of the sandbox's own
				continue
			}
			line = "    at " + name + " (native)"
		case f.file == sourceName:
			l, c, ok := j.pos.orig(f.line, f.col)
			if !ok {
				continue
			}
			loc := fmt.Sprintf("%s:%d:%d", sourceName, l, c)
			if f.name == "" || f.name == "<anonymous>" {
				line = "    at " + loc
			} else {
				line = "    at " + f.name + " (" + loc + ")"
			}
		default:
			continue // the sandbox's own programs
		}
		if shown == max {
			fmt.Fprintf(&b, "\n    ... %d more frames", len(frames)-i)
			break
		}
		if shown > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		shown++
	}
	return strings.TrimRight(b.String(), "\n")
}

// topPosition is the code position of the innermost frame in the code.
func (j *job) topPosition(frames []frame) (int, int) {
	for i := range frames {
		if f := &frames[i]; f.file == sourceName {
			if l, c, ok := j.pos.orig(f.line, f.col); ok {
				return l, c
			}
		}
	}
	return 0, 0
}
