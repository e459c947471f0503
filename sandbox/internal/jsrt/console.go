package jsrt

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/dop251/goja"
)

// console is a run's bounded console output.
type console struct {
	maxBytes, maxLines int
	bytes              int
	lines              []LogLine
	full               bool
}

// truncationMarker is logged once when the console output hits a limit.
func (c *console) truncationMarker() LogLine {
	return LogLine{Level: LevelWarn, Text: fmt.Sprintf(
		"[console output truncated: more than %d lines or %s were logged; the rest was dropped. Log less, or summarise.]",
		c.maxLines, FormatBytes(int64(c.maxBytes)))}
}

// room is how many bytes one more line may have.
func (c *console) room() int {
	if c.full {
		return 0
	}
	return c.maxBytes - c.bytes
}

// add appends a line; truncated says the text was cut to fit the room.
func (c *console) add(level Level, text string, truncated bool) {
	if c.full {
		return
	}
	if len(c.lines) >= c.maxLines {
		c.full = true
		c.lines = append(c.lines, c.truncationMarker())
		return
	}
	if room := c.maxBytes - c.bytes; len(text) > room {
		text, truncated = TruncateUTF8(text, room), true
	}
	c.lines = append(c.lines, LogLine{Level: level, Text: text})
	c.bytes += len(text)
	if truncated {
		c.full = true
		c.lines = append(c.lines, c.truncationMarker())
	}
}

// installConsole defines the global console.
func (j *job) installConsole() error {
	rt := j.rt
	o := rt.NewObject()
	methods := []struct {
		name  string
		level Level
	}{
		{"log", LevelLog}, {"info", LevelInfo}, {"warn", LevelWarn}, {"error", LevelError},
		{"debug", LevelDebug}, {"trace", LevelDebug}, {"dir", LevelLog},
	}
	for _, m := range methods {
		level := m.level
		fn := j.hostFunc(m.name, func(c goja.FunctionCall) goja.Value {
			j.log(level, c.Arguments)
			return goja.Undefined()
		})
		if err := o.Set(m.name, fn); err != nil {
			return err
		}
	}
	return rt.GlobalObject().DefineDataProperty("console", o, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// log formats a console call's arguments, within the room left.
func (j *job) log(level Level, args []goja.Value) {
	c := &j.console
	if c.full {
		return
	}
	var b strings.Builder
	truncated := false
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		room := c.room() - b.Len()
		if room <= 0 {
			truncated = true
			break
		}
		if j.formatArg(&b, a, room) {
			truncated = true
			break
		}
	}
	c.add(level, b.String(), truncated)
}

// formatArg writes a console argument: strings as they are, other
// primitives as JS prints them, objects as their JSON form. It reports
// whether the text was cut at room bytes.
func (j *job) formatArg(b *strings.Builder, v goja.Value, room int) bool {
	if s, cut, ok := boundedString(v, room); ok { // copies no more than fits
		b.WriteString(s)
		return cut
	}
	if _, isObj := v.(*goja.Object); !isObj {
		var text string
		switch {
		case v == nil || goja.IsUndefined(v):
			text = "undefined"
		default:
			if sym, ok := v.(*goja.Symbol); ok {
				desc, _ := j.symbolDescription(sym, room)
				text = "Symbol(" + desc + ")"
			} else if n, ok := v.Export().(*big.Int); ok {
				if n.BitLen() > room*4 {
					return true
				}
				text = n.String() + "n"
			} else if isNumber(v) {
				text = jsNumber(v.ToFloat())
			} else {
				text = v.String() // a boolean, null or symbol: no user code
			}
		}
		if len(text) > room {
			b.WriteString(TruncateUTF8(text, room))
			return true
		}
		b.WriteString(text)
		return false
	}
	s, err := j.convert(j.kit.export, v, &sink{max: room, maxDepth: j.lim.ResultDepth, truncate: true})
	if err != nil && !s.truncated {
		// The exporter failed for another reason (an interrupt, a built-in
		// the code replaced): let an interrupt propagate, else say so.
		if isUncatchable(err) {
			panic(err)
		}
		b.WriteString("[unprintable value]")
		return false
	}
	b.Write(s.buf)
	if s.truncated {
		b.WriteString("…")
	}
	return s.truncated
}
