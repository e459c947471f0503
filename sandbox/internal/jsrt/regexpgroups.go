package jsrt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// Named capture groups. The goja version loom runs on parses (?<name>…)
// but leaves a match's groups undefined and does not substitute $<name> in
// a replacement string. RegExp.prototype.exec is wrapped to add groups (an
// object with no prototype, as the spec makes), and String.prototype.replace
// and replaceAll to substitute a replacement string's $<name>, $n, $&, $`,
// $' and $$ themselves when the pattern has named groups. A regexp whose
// names cannot be read is left to goja.

// groupNames returns the capture groups of a regexp source: their count
// and the index of each named one.
func groupNames(src string) (count int, names map[string]int) {
	inClass := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			if i+1 < len(src) && src[i+1] == '?' {
				if i+2 < len(src) && src[i+2] == '<' && i+3 < len(src) && src[i+3] != '=' && src[i+3] != '!' {
					end := strings.IndexByte(src[i+3:], '>')
					if end < 0 {
						return count, names
					}
					count++
					if names == nil {
						names = map[string]int{}
					}
					names[src[i+3:i+3+end]] = count
				}
				continue
			}
			count++
		}
	}
	return count, names
}

// regexpGroups returns the capture groups of a RegExp object, read through
// the source getter taken at setup; names is nil when it has no named
// group or is not a RegExp.
func (j *job) regexpGroups(v goja.Value) (int, map[string]int) {
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "RegExp" || j.in.regexpSource == nil {
		return 0, nil
	}
	src, err := j.in.regexpSource(o)
	s, ok := primString(src)
	if err != nil || !ok || !strings.Contains(s, "(?<") {
		return 0, nil
	}
	if g, ok := j.groupCache[s]; ok {
		return g.count, g.names
	}
	n, names := groupNames(s)
	if j.groupCache == nil {
		j.groupCache = map[string]regexpGroupInfo{}
	}
	if len(j.groupCache) < 256 {
		j.groupCache[s] = regexpGroupInfo{n, names}
	}
	return n, names
}

// regexpGroupInfo is a cached groupNames result.
type regexpGroupInfo struct {
	count int
	names map[string]int
}

// reachesRegExp reports whether code may reach RegExp, as far as its text
// tells (a regexp literal shows in the syntax tree instead): it names
// RegExp, calls match or matchAll (which make a RegExp of a string
// pattern and call its exec), or may read globals by a computed name
// (reachesGlobal). Like reachesGlobal it is a heuristic, and decides only
// what a miss costs no guarantee: on a miss a match has no groups and a
// replacement no $<name>, as on goja, and a RegExp's export is refused
// with an error, never read through the code's replacements.
func reachesRegExp(code string) bool {
	return reachesGlobal(code, "RegExp", "match")
}

// installRegExp takes RegExp's built-ins and wraps exec, replace and
// replaceAll, once per runtime, before the code runs.
func (j *job) installRegExp() error {
	if j.regexps {
		return nil
	}
	rt := j.rt
	if err := j.captureRegExp(); err != nil {
		return err
	}
	create, ok := goja.AssertFunction(rt.Get("Object").(*goja.Object).Get("create"))
	if !ok {
		return fmt.Errorf("lockdown: Object.create is not a function")
	}
	rp := rt.Get("RegExp").(*goja.Object).Get("prototype").(*goja.Object)
	err := j.wrapMethod(rp, "exec", func(orig goja.Callable, c goja.FunctionCall) goja.Value {
		res := must(orig(c.This, c.Arguments...))
		_, names := j.regexpGroups(c.This)
		m, ok := res.(*goja.Object)
		if names == nil || !ok {
			return res
		}
		groups := must(create(goja.Undefined(), goja.Null())).(*goja.Object)
		for name, idx := range names {
			_ = groups.DefineDataProperty(name, m.Get(strconv.Itoa(idx)), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		}
		_ = m.DefineDataProperty("groups", groups, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		return m
	})
	if err != nil {
		return err
	}
	sp := rt.Get("String").(*goja.Object).Get("prototype").(*goja.Object)
	for _, name := range []string{"replace", "replaceAll"} {
		err := j.wrapMethod(sp, name, func(orig goja.Callable, c goja.FunctionCall) goja.Value {
			pattern, repl := c.Argument(0), c.Argument(1)
			rs, isStr := primString(repl)
			if !isStr || !strings.Contains(rs, "$<") {
				return must(orig(c.This, c.Arguments...))
			}
			count, names := j.regexpGroups(pattern)
			if names == nil {
				return must(orig(c.This, c.Arguments...))
			}
			fn := rt.ToValue(func(fc goja.FunctionCall) goja.Value {
				return rt.ToValue(substitute(rs, fc.Arguments, count, names))
			})
			return must(orig(c.This, pattern, fn))
		})
		if err != nil {
			return err
		}
	}
	j.regexps = true
	return nil
}

// substitute is the spec's GetSubstitution for a replace function's
// arguments (match, the count captures, position, string).
func substitute(repl string, args []goja.Value, count int, names map[string]int) string {
	arg := func(i int) string {
		if i < len(args) && args[i] != nil && !goja.IsUndefined(args[i]) {
			return args[i].String() // captures, the match and the string are primitive strings
		}
		return ""
	}
	match, str := arg(0), arg(count+2)
	pos := 0
	if count+1 < len(args) {
		pos = int(args[count+1].ToInteger())
	}
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '$' || i+1 >= len(repl) {
			b.WriteByte(c)
			continue
		}
		switch n := repl[i+1]; {
		case n == '$':
			b.WriteByte('$')
			i++
		case n == '&':
			b.WriteString(match)
			i++
		case n == '`':
			b.WriteString(str[:min(pos, len(str))])
			i++
		case n == '\'':
			b.WriteString(str[min(pos+len(match), len(str)):])
			i++
		case n == '<':
			end := strings.IndexByte(repl[i+2:], '>')
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			if idx, ok := names[repl[i+2:i+2+end]]; ok {
				b.WriteString(arg(idx))
			}
			i += 2 + end
		case n >= '0' && n <= '9':
			d := int(n - '0')
			width := 1
			if i+2 < len(repl) && repl[i+2] >= '0' && repl[i+2] <= '9' {
				if dd := d*10 + int(repl[i+2]-'0'); dd >= 1 && dd <= count {
					d, width = dd, 2
				}
			}
			if d >= 1 && d <= count {
				b.WriteString(arg(d))
				i += width
			} else {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
