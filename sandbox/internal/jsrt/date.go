package jsrt

import (
	"fmt"
	"math"
	"time"

	"github.com/dop251/goja"
)

// Dates are in UTC in both executors. goja's local time is the process's
// time.Local, and it has no public hook for a zone. A worker runs with
// TZ=UTC, so its local time is UTC. In process, time.Local is the host's
// and loom does not change a process-wide setting: when it is not UTC, the
// local-time methods of Date are replaced at setup with their UTC
// counterparts, getTimezoneOffset returns 0, and new Date(y, m, …) builds
// from Date.UTC. What still differs in process on a host outside UTC: a
// date-time string without a zone (Date.parse('2020-01-01T10:00'),
// new Date('Jan 1 2020')) is read in the host's zone.
//
// In both executors the string forms are written by the sandbox, as Node
// writes them in UTC with the en-US locale:
// String(d) is "Wed Jan 01 2020 12:00:00 GMT+0000 (Coordinated Universal Time)",
// d.toLocaleString() is "1/1/2020, 12:00:00 PM".

// dateFormats are the Date.prototype methods that write a string, with
// their Go layouts in UTC.
var dateFormats = []struct{ name, layout string }{
	{"toString", "Mon Jan 02 2006 15:04:05 GMT+0000 (Coordinated Universal Time)"},
	{"toDateString", "Mon Jan 02 2006"},
	{"toTimeString", "15:04:05 GMT+0000 (Coordinated Universal Time)"},
	{"toLocaleString", "1/2/2006, 3:04:05 PM"},
	{"toLocaleDateString", "1/2/2006"},
	{"toLocaleTimeString", "3:04:05 PM"},
}

// localToUTC pairs each local-time method with its UTC counterpart.
var localToUTC = [][2]string{
	{"getFullYear", "getUTCFullYear"}, {"getMonth", "getUTCMonth"}, {"getDate", "getUTCDate"}, {"getDay", "getUTCDay"},
	{"getHours", "getUTCHours"}, {"getMinutes", "getUTCMinutes"}, {"getSeconds", "getUTCSeconds"}, {"getMilliseconds", "getUTCMilliseconds"},
	{"setFullYear", "setUTCFullYear"}, {"setMonth", "setUTCMonth"}, {"setDate", "setUTCDate"},
	{"setHours", "setUTCHours"}, {"setMinutes", "setUTCMinutes"}, {"setSeconds", "setUTCSeconds"}, {"setMilliseconds", "setUTCMilliseconds"},
}

// hostInUTC reports whether time.Local is UTC at every instant.
func hostInUTC() bool {
	if time.Local == time.UTC {
		return true
	}
	for _, t := range []time.Time{time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2020, 7, 1, 0, 0, 0, 0, time.UTC)} {
		if _, off := t.In(time.Local).Zone(); off != 0 {
			return false
		}
	}
	return true
}

// installDate writes Date's string forms in UTC, and makes local time UTC
// when the process's is not. On a host in UTC (a worker always is) it runs
// before a run whose code can reach Date (reachesGlobal), after setup:
// creating and wrapping Date costs about 160 allocations; elsewhere it is
// part of every runtime's setup.
func (j *job) installDate() error {
	rt := j.rt
	ctor := rt.Get("Date").(*goja.Object)
	dp := ctor.Get("prototype").(*goja.Object)
	getTime, ok := goja.AssertFunction(dp.Get("getTime"))
	if !ok {
		return fmt.Errorf("lockdown: Date.prototype.getTime is not a function")
	}
	for _, f := range dateFormats {
		layout, name := f.layout, f.name
		err := j.wrapMethod(dp, name, func(_ goja.Callable, c goja.FunctionCall) goja.Value {
			ms := must(getTime(c.This)).ToFloat() // a TypeError for anything but a Date
			if math.IsNaN(ms) {
				return rt.ToValue("Invalid Date")
			}
			return rt.ToValue(time.UnixMilli(int64(ms)).UTC().Format(layout))
		})
		if err != nil {
			return err
		}
	}
	if hostInUTC() {
		return nil
	}
	for _, p := range localToUTC {
		utc, ok := goja.AssertFunction(dp.Get(p[1]))
		if !ok {
			return fmt.Errorf("lockdown: Date.prototype.%s is not a function", p[1])
		}
		err := j.wrapMethod(dp, p[0], func(_ goja.Callable, c goja.FunctionCall) goja.Value {
			return must(utc(c.This, c.Arguments...))
		})
		if err != nil {
			return err
		}
	}
	err := j.wrapMethod(dp, "getTimezoneOffset", func(_ goja.Callable, c goja.FunctionCall) goja.Value {
		if ms := must(getTime(c.This)).ToFloat(); math.IsNaN(ms) {
			return rt.ToValue(math.NaN())
		}
		return rt.ToValue(0)
	})
	if err != nil {
		return err
	}
	dateUTC, ok := goja.AssertFunction(ctor.Get("UTC"))
	if !ok {
		return fmt.Errorf("lockdown: Date.UTC is not a function")
	}
	construct, ok := goja.AssertConstructor(ctor)
	if !ok {
		return fmt.Errorf("lockdown: Date is not a constructor")
	}
	return j.wrapConstructor("Date", ctor, &goja.ProxyTrapConfig{
		Construct: func(target *goja.Object, args []goja.Value, newTarget *goja.Object) *goja.Object {
			if len(args) >= 2 {
				args = []goja.Value{must(dateUTC(goja.Undefined(), args...))}
			}
			return mustObject(construct(newTarget, args...))
		},
		Apply: func(target *goja.Object, _ goja.Value, _ []goja.Value) goja.Value { // Date() is now's string
			now := mustObject(construct(target))
			return rt.ToValue(time.UnixMilli(must(getTime(now)).ToInteger()).UTC().Format(dateFormats[0].layout))
		},
	})
}
