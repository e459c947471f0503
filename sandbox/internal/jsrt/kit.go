package jsrt

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"
)

//go:embed kit.js
var kitSource string

// kitProgram is the compiled exporter; a *goja.Program is immutable and
// safe to run in many runtimes at once.
var kitProgram = lazyProgram("loom-sandbox-kit.js", kitSource, true)

var (
	proxyType   = reflect.TypeOf(goja.Proxy{})
	promiseType = reflect.TypeOf((*goja.Promise)(nil))
	timeType    = reflect.TypeOf(time.Time{})
	// goja exports a Map as [][2]any and a Set as []any, and its class name
	// for both is "Object".
	mapType = reflect.TypeOf([][2]any(nil))
	setType = reflect.TypeOf([]any(nil))
)

// kit holds a run's exporter functions.
type kit struct {
	export   goja.Callable
	describe goja.Callable
}

// errStopSink is thrown (as a JS TypeError) by a sink that is full or has
// failed, to unwind the exporter; the Go caller reads the sink's state.
const stopSinkMessage = "loom sandbox: export stopped"

// sink receives the exporter's output for one conversion.
type sink struct {
	buf      []byte
	max      int  // byte budget
	maxDepth int  // nesting budget
	truncate bool // over budget: stop quietly (console), not fail

	truncated bool
	err       *Error
	stack     []*goja.Object
	path      []string

	// errorInfo of a described Error object.
	isError         bool
	errName, errMsg string
	errFrames       []frame
}

func (s *sink) room(n int) bool {
	if len(s.buf)+n <= s.max {
		return true
	}
	if s.truncate {
		s.truncated = true
	} else if s.err == nil {
		s.err = &Error{Kind: KindOutputTooLarge, Limit: int64(s.max), Message: fmt.Sprintf(
			"The result is too large: its JSON form is more than %s (the limit). Return a smaller value: a summary, a count, or the first items (for example arr.slice(0, 100)).",
			FormatBytes(int64(s.max)))}
	}
	return false
}

// newKit creates the exporter in rt, bound to the job's sinks.
func (j *job) newKit() error {
	rt := j.rt
	host := rt.ToValue(j.hostOp)
	v, err := rt.RunProgram(kitProgram())
	if err != nil {
		return err
	}
	mk, ok := goja.AssertFunction(v)
	if !ok {
		return errors.New("kit program is not a function")
	}
	arr, err := mk(goja.Undefined(), host)
	if err != nil {
		return err
	}
	o := arr.(*goja.Object)
	j.kit.export, _ = goja.AssertFunction(o.Get("0"))
	j.kit.describe, _ = goja.AssertFunction(o.Get("1"))
	if j.kit.export == nil || j.kit.describe == nil {
		return errors.New("kit functions missing")
	}
	return nil
}

// The exporter's operations on the host, in the order of kit.js's
// constants: one host function (hostOp) dispatches them, since every
// native function costs a runtime about ten allocations.
const (
	opClassOf = iota
	opTok
	opStr
	opNum
	opBig
	opSym
	opDate
	opEnter
	opLeave
	opPromiseState
	opErrorInfo
	opEntries
	opTyped
	opRegexp
)

// hostOp runs the exporter's operation named by its first argument on the
// others. Only the kit calls it: it is passed to the kit's program and put
// nowhere the code can reach.
func (j *job) hostOp(c goja.FunctionCall) goja.Value {
	op, ok := c.Argument(0).Export().(int64)
	if !ok || len(c.Arguments) == 0 {
		j.stopSink()
	}
	c.Arguments = c.Arguments[1:]
	switch op {
	case opClassOf:
		return j.hostClassOf(c)
	case opTok:
		return j.hostTok(c)
	case opStr:
		return j.hostStr(c)
	case opNum:
		return j.hostNum(c)
	case opBig:
		return j.hostBig(c)
	case opSym:
		return j.hostSym(c)
	case opDate:
		return j.hostDate(c)
	case opEnter:
		return j.hostEnter(c)
	case opLeave:
		return j.hostLeave(c)
	case opPromiseState:
		return j.hostPromiseState(c)
	case opErrorInfo:
		return j.hostErrorInfo(c)
	case opEntries:
		return j.hostEntries(c)
	case opTyped:
		return j.hostTyped(c)
	case opRegexp:
		return j.hostRegexp(c)
	}
	j.stopSink()
	return goja.Undefined()
}

// stopSink unwinds the exporter.
func (j *job) stopSink() {
	panic(j.rt.NewTypeError(stopSinkMessage))
}

func (j *job) curSink() *sink {
	if j.sink == nil { // the kit is only called with a sink; be safe
		j.sink = &sink{max: 0}
	}
	return j.sink
}

// primString returns v as a Go string when v is a primitive string.
func primString(v goja.Value) (string, bool) {
	if s, ok := v.(goja.String); ok {
		return s.String(), true
	}
	return "", false
}

func (j *job) hostClassOf(c goja.FunctionCall) goja.Value {
	o, ok := c.Argument(0).(*goja.Object)
	if !ok {
		return j.rt.ToValue("")
	}
	return j.rt.ToValue(classOf(o))
}

// classOf names an object's class without running any of its code.
func classOf(o *goja.Object) string {
	t := o.ExportType()
	if t == proxyType {
		return "proxy"
	}
	cn := o.ClassName()
	if cn == "Object" && t != nil {
		switch {
		case t == promiseType:
			return "Promise"
		case t == mapType:
			return "Map"
		case t == setType:
			return "Set"
		case t.Kind() == reflect.Slice && t.Elem().Kind() >= reflect.Int && t.Elem().Kind() <= reflect.Float64:
			return "TypedArray"
		}
	}
	return cn
}

func (j *job) hostTok(c goja.FunctionCall) goja.Value {
	s := j.curSink()
	t, _ := primString(c.Argument(0))
	switch t {
	case "{", "}", "[", "]", ",", ":", "null", "true", "false", ":[", "]}", ":{", "}}":
	default:
		j.stopSink()
	}
	if !s.room(len(t)) {
		j.stopSink()
	}
	s.buf = append(s.buf, t...)
	return goja.Undefined()
}

func (j *job) hostStr(c goja.FunctionCall) goja.Value {
	s := j.curSink()
	v := c.Argument(0)
	if _, isObj := v.(*goja.Object); isObj {
		j.stopSink()
	}
	// Check the length before converting: a huge string is refused without
	// being copied.
	if n := stringLength(v); !s.room(n + 2) {
		if room := s.max - len(s.buf) - 2; s.truncate && room > 0 { // keep what fits
			text, _, _ := boundedString(v, room)
			s.buf = appendQuoted(s.buf, text)
		}
		j.stopSink()
	}
	str := v.String()
	q := appendQuoted(nil, str)
	if !s.room(len(q)) {
		j.stopSink()
	}
	s.buf = append(s.buf, q...)
	return goja.Undefined()
}

// stringLength is a lower bound of the UTF-8 length of a primitive string.
func stringLength(v goja.Value) int {
	if s, ok := v.(goja.String); ok {
		return s.Length()
	}
	return 0
}

// boundedString returns a primitive string's text cut to at most max
// bytes of UTF-8, converting no more of it than that; cut says it was cut.
func boundedString(v goja.Value, max int) (text string, cut, ok bool) {
	s, ok := v.(goja.String)
	if !ok {
		return "", false, false
	}
	if max < 0 {
		max = 0
	}
	if s.Length() > max { // a UTF-16 unit is at least one byte of UTF-8
		s, cut = s.Substring(0, max), true
	}
	text = s.String()
	if len(text) > max {
		text, cut = TruncateUTF8(text, max), true
	}
	return text, cut, true
}

// symbolDescription is a Symbol's description, cut to at most max bytes.
func (j *job) symbolDescription(sym *goja.Symbol, max int) (string, bool) {
	d, ok := symbolText(sym)
	if !ok {
		return "", false
	}
	if max < 0 {
		max = 0
	}
	if len(d) > max {
		return TruncateUTF8(d, max), true
	}
	return d, false
}

func TruncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (j *job) hostNum(c goja.FunctionCall) goja.Value {
	s := j.curSink()
	v := c.Argument(0)
	if _, isObj := v.(*goja.Object); isObj {
		j.stopSink()
	}
	if !s.number(v) {
		j.stopSink()
	}
	return goja.Undefined()
}

// primitive writes a number, boolean, BigInt or string as the exporter
// does, from Go: reading a primitive runs no code, so it needs neither the
// exporter nor the check of Object.prototype it reads objects under. It
// returns false, having written nothing, for any other value and for one
// that does not fit, which the exporter then handles (and reports).
func (s *sink) primitive(v goja.Value) bool {
	if _, isObj := v.(*goja.Object); isObj || len(s.buf) != 0 || s.truncate {
		return false
	}
	ok := false
	switch x := v.Export().(type) { // a primitive's export runs no code
	case int64, float64:
		ok = s.number(v)
	case bool:
		t := "false"
		if x {
			t = "true"
		}
		if ok = s.room(len(t)); ok {
			s.buf = append(s.buf, t...)
		}
	case *big.Int:
		ok = s.bigint(x)
	case string:
		if _, isStr := v.(goja.String); isStr && s.room(stringLength(v)+2) {
			q := appendQuoted(nil, x)
			if ok = s.room(len(q)); ok {
				s.buf = append(s.buf, q...)
			}
		}
	}
	if !ok {
		s.buf, s.err = s.buf[:0], nil
	}
	return ok
}

// number writes a primitive number; false when it does not fit.
func (s *sink) number(v goja.Value) bool {
	f := v.ToFloat()
	var out string
	switch {
	case math.IsNaN(f):
		out = `{"$number":"NaN"}`
	case math.IsInf(f, 1):
		out = `{"$number":"Infinity"}`
	case math.IsInf(f, -1):
		out = `{"$number":"-Infinity"}`
	default:
		out = jsNumber(f) // JS number formatting; always valid JSON
	}
	if !s.room(len(out)) {
		return false
	}
	s.buf = append(s.buf, out...)
	return true
}

func (j *job) hostBig(c goja.FunctionCall) goja.Value {
	s := j.curSink()
	b, ok := c.Argument(0).Export().(*big.Int)
	if !ok || !s.bigint(b) {
		j.stopSink()
	}
	return goja.Undefined()
}

// bigint writes a BigInt; false when it does not fit.
func (s *sink) bigint(b *big.Int) bool {
	// A decimal digit carries log2(10) ≈ 3.32 bits; refuse before formatting
	// a number too large to fit.
	if !s.room(int(float64(b.BitLen())/3.33) + 14) {
		return false
	}
	s.buf = append(s.buf, `{"$bigint":"`...)
	s.buf = b.Append(s.buf, 10)
	s.buf = append(s.buf, `"}`...)
	return true
}

func (j *job) hostSym(c goja.FunctionCall) goja.Value {
	s := j.curSink()
	sym, ok := c.Argument(0).(*goja.Symbol)
	if !ok {
		j.stopSink()
	}
	// The description is cut before it is quoted: only what may fit is
	// copied.
	desc, _ := j.symbolDescription(sym, s.max-len(s.buf))
	out := appendQuoted([]byte(`{"$symbol":`), desc)
	out = append(out, '}')
	if !s.room(len(out)) {
		j.stopSink()
	}
	s.buf = append(s.buf, out...)
	return goja.Undefined()
}

func (j *job) hostDate(c goja.FunctionCall) goja.Value {
	s := j.curSink()
	o, ok := c.Argument(0).(*goja.Object)
	if !ok || o.ExportType() != timeType {
		j.stopSink()
	}
	text := "Invalid Date"
	if t, ok := o.Export().(time.Time); ok {
		text = t.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	out := appendQuoted([]byte(`{"$date":`), text)
	out = append(out, '}')
	if !s.room(len(out)) {
		j.stopSink()
	}
	s.buf = append(s.buf, out...)
	return goja.Undefined()
}

func (j *job) hostPromiseState(c goja.FunctionCall) goja.Value {
	if p := asPromise(c.Argument(0)); p != nil {
		switch p.State() {
		case goja.PromiseStateFulfilled:
			return j.rt.ToValue("fulfilled")
		case goja.PromiseStateRejected:
			return j.rt.ToValue("rejected")
		}
	}
	return j.rt.ToValue("pending")
}

// asPromise returns v's Promise when v is a Promise object, without running
// any of v's code.
func asPromise(v goja.Value) *goja.Promise {
	o, ok := v.(*goja.Object)
	if !ok || o.ExportType() != promiseType {
		return nil
	}
	p, _ := o.Export().(*goja.Promise)
	return p
}

func (j *job) hostEnter(c goja.FunctionCall) goja.Value {
	s := j.curSink()
	o, ok := c.Argument(0).(*goja.Object)
	if !ok {
		j.stopSink()
	}
	key := c.Argument(1)
	k := ""
	if _, isObj := key.(*goja.Object); !isObj && key != nil {
		k = key.String()
	}
	for i, anc := range s.stack {
		if anc == o {
			if s.err == nil && !s.truncate {
				s.err = &Error{Kind: KindCyclicValue, Message: fmt.Sprintf(
					"The result contains a cycle: %s refers back to %s. Return data without circular references (copy the fields you need into a new object).",
					pathString(append(s.path[1:], k)), pathString(s.path[1:i+1]))}
			}
			if s.truncate {
				s.truncated = true
			}
			j.stopSink()
		}
	}
	if len(s.stack) >= s.maxDepth {
		if s.err == nil && !s.truncate {
			s.err = &Error{Kind: KindOutputTooLarge, Limit: int64(s.maxDepth), Message: fmt.Sprintf(
				"The result is nested more than %d levels deep (the limit). Return flatter data.", s.maxDepth)}
		}
		if s.truncate {
			s.truncated = true
		}
		j.stopSink()
	}
	s.stack = append(s.stack, o)
	s.path = append(s.path, k)
	return goja.Undefined()
}

// pathString renders a path of keys as result.a[0].b.
func pathString(keys []string) string {
	var b strings.Builder
	b.WriteString("result")
	for _, k := range keys {
		if _, err := strconv.Atoi(k); err == nil {
			b.WriteString("[" + k + "]")
		} else if isIdent(k) {
			b.WriteString("." + k)
		} else {
			b.WriteString("[" + strconv.Quote(k) + "]")
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

func (j *job) hostLeave(goja.FunctionCall) goja.Value {
	s := j.curSink()
	if n := len(s.stack); n > 0 {
		s.stack = s.stack[:n-1]
		s.path = s.path[:n-1]
	}
	return goja.Undefined()
}

// Bounds of an Error's name and message in reports, applied before they
// are copied.
const (
	maxErrorName    = 256
	maxErrorMessage = 8 << 10
)

func (j *job) hostErrorInfo(c goja.FunctionCall) goja.Value {
	s := j.curSink()
	s.isError = true
	s.errName = boundedText(c.Argument(1), maxErrorName)
	s.errMsg = boundedText(c.Argument(2), maxErrorMessage)
	if st, ok := primString(c.Argument(3)); ok {
		s.errFrames = parseStack(st, maxStackFrames)
	}
	return goja.Undefined()
}

// boundedText is a primitive string cut to max bytes, with an ellipsis
// when it was cut; "" for any other value.
func boundedText(v goja.Value, max int) string {
	text, cut, _ := boundedString(v, max)
	if cut {
		text += "…"
	}
	return text
}

// hostEntries returns a fresh array of a Map's keys and values
// ([k, v, k, v…]) or a Set's values, read from their internal slots, no
// more than could fit in the sink.
func (j *job) hostEntries(c goja.FunctionCall) goja.Value {
	s := j.curSink()
	o, ok := c.Argument(0).(*goja.Object)
	if !ok {
		j.stopSink()
	}
	keys, values, ok := j.entries(o, s.max-len(s.buf)+1)
	if !ok {
		j.stopSink()
	}
	out := make([]any, 0, 2*len(values))
	for i, v := range values {
		if keys[i] != nil {
			out = append(out, keys[i])
		}
		out = append(out, v)
	}
	return j.rt.NewArray(out...)
}

// hostTyped writes a typed array's elements, read from its buffer.
func (j *job) hostTyped(c goja.FunctionCall) goja.Value {
	s := j.curSink()
	o, ok := c.Argument(0).(*goja.Object)
	if !ok {
		j.stopSink()
	}
	n, get, ok := j.typedArray(o)
	if !ok || !s.room(2) {
		j.stopSink()
	}
	s.buf = append(s.buf, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			if !s.room(1) {
				j.stopSink()
			}
			s.buf = append(s.buf, ',')
		}
		v := get(i)
		var fits bool
		if v == nil { // the buffer was detached
			fits = s.room(4)
			if fits {
				s.buf = append(s.buf, "null"...)
			}
		} else if b, isBig := v.Export().(*big.Int); isBig {
			fits = s.bigint(b)
		} else {
			fits = s.number(v)
		}
		if !fits {
			j.stopSink()
		}
	}
	if !s.room(1) {
		j.stopSink()
	}
	s.buf = append(s.buf, ']')
	return goja.Undefined()
}

// hostRegexp returns a RegExp's /source/flags from its internal slots.
func (j *job) hostRegexp(c goja.FunctionCall) goja.Value {
	if o, ok := c.Argument(0).(*goja.Object); ok {
		if text, ok := j.regexpText(o); ok {
			return j.rt.ToValue(text)
		}
		if o.ClassName() == "RegExp" && j.in.regexpSource == nil {
			// The code reached RegExp where its text did not show it
			// (reachesRegExp): its getters were not taken before the code
			// ran, so the host refuses rather than read them now.
			j.stopSink()
		}
	}
	return j.rt.ToValue("")
}

// convert runs fn (the exporter or the describer) on v with a fresh sink.
// It returns the sink and the JS error, if the conversion failed.
func (j *job) convert(fn goja.Callable, v goja.Value, s *sink) (*sink, error) {
	if name := j.taintedObjectPrototype(); name != "" {
		s.err = &Error{Kind: KindUnreadableValue, Message: fmt.Sprintf(
			"The value could not be read: the code defined %q on Object.prototype (or its prototype chain), a name the sandbox's reader of values relies on, "+
				"so reading the value would run the code's own functions or report it wrongly. Do not define properties on Object.prototype; delete it before the code ends (delete Object.prototype[%q]).", name, name)}
		return s, errUnreadable
	}
	prev := j.sink
	j.sink = s
	defer func() { j.sink = prev }()
	_, err := fn(goja.Undefined(), v)
	return s, err
}

// errUnreadable is convert's error when the value cannot be read without
// running the code's functions; the sink's err explains it.
var errUnreadable = errors.New("sandbox: value unreadable")

// appendQuoted appends s as a JSON string, escaping only what JSON
// requires (no HTML escaping), so models read it as written.
func appendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// formatBytes renders n as KiB or MiB when it is a round number of them.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
