package jsrt

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// jsNumber formats f as JavaScript's Number::toString does (radix 10): the
// shortest digits that read back as f, in fixed notation for exponents
// from -7 to 20 and in exponential notation otherwise. goja's own
// formatting writes wrong digits for a small fraction of doubles
// (0.7016570306969449 as "0.701657030696945"); the host formats numbers
// with this instead, and the runtime's Number.prototype.toString and
// String(n) use it too.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// d.ddde±x: the shortest round-trip digits and the exponent.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	digits := strings.Replace(mant, ".", "", 1)
	k, n := len(digits), x+1 // value = 0.digits × 10^n
	var b strings.Builder
	b.WriteString(sign)
	switch {
	case k <= n && n <= 21:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", n-k))
	case 0 < n && n <= 21:
		b.WriteString(digits[:n])
		b.WriteByte('.')
		b.WriteString(digits[n:])
	case -6 < n && n <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -n))
		b.WriteString(digits)
	default:
		b.WriteByte(digits[0])
		if k > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if n-1 >= 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(n - 1))
	}
	return b.String()
}

// isNumber reports whether v is a primitive number.
func isNumber(v goja.Value) bool {
	if v == nil {
		return false
	}
	if _, isObj := v.(*goja.Object); isObj {
		return false
	}
	t := v.ExportType()
	return t != nil && (t.Kind() == reflect.Int64 || t.Kind() == reflect.Float64)
}

// installNumberFormat replaces Number.prototype.toString (radix 10) and
// String called as a function on a number with jsNumber. Implicit
// conversions ("" + n, `${n}`, join) stay goja's: no public hook reaches
// them.
func (j *job) installNumberFormat() error {
	rt := j.rt
	np := rt.Get("Number").(*goja.Object).Get("prototype").(*goja.Object)
	valueOf, ok := goja.AssertFunction(np.Get("valueOf"))
	if !ok {
		return fmt.Errorf("lockdown: Number.prototype.valueOf is not a function")
	}
	err := j.wrapMethod(np, "toString", func(orig goja.Callable, c goja.FunctionCall) goja.Value {
		if r := c.Argument(0); !goja.IsUndefined(r) && r.ToFloat() != 10 {
			return must(orig(c.This, c.Arguments...))
		}
		n := must(valueOf(c.This)) // a TypeError for anything but a number
		return rt.ToValue(jsNumber(n.ToFloat()))
	})
	if err != nil {
		return err
	}
	err = j.wrapMethod(np, "toLocaleString", func(orig goja.Callable, c goja.FunctionCall) goja.Value {
		n := must(valueOf(c.This))
		return rt.ToValue(localeNumber(n.ToFloat()))
	})
	if err != nil {
		return err
	}
	str, ok := rt.Get("String").(*goja.Object)
	if !ok {
		return fmt.Errorf("lockdown: String is not an object")
	}
	call, ok := goja.AssertFunction(str)
	if !ok {
		return fmt.Errorf("lockdown: String is not a function")
	}
	return j.wrapConstructor("String", str, &goja.ProxyTrapConfig{
		Apply: func(_ *goja.Object, this goja.Value, args []goja.Value) goja.Value {
			if len(args) > 0 && isNumber(args[0]) {
				return rt.ToValue(jsNumber(args[0].ToFloat()))
			}
			return must(call(this, args...))
		},
	})
}

// localeNumber formats f as Node's toLocaleString() does with the en-US
// locale and no options: groups of three digits, at most three decimals.
func localeNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "∞"
	case math.IsInf(f, -1):
		return "-∞"
	}
	s := strconv.FormatFloat(f, 'f', 3, 64)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	var b strings.Builder
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if out == "0" {
		sign = ""
	}
	return sign + out
}
