package sandbox

import (
	"bytes"
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

// nodeSnippets are programs of the kind models write, each ending with a
// value Node's JSON.stringify and the sandbox's exporter write alike.
var nodeSnippets = []string{
	// Dates.
	`new Date(0).toISOString()`,
	`new Date(Date.UTC(2024, 1, 29, 12, 30)).toISOString()`,
	`new Date('2024-03-10T05:06:07Z').getTime()`,
	`new Date('2024-03-10').toISOString()`,
	`Date.UTC(2000, 0, 1)`,
	`new Date(2020, 0, 1, 12).toISOString()`,
	`[new Date(0).getFullYear(), new Date(0).getMonth(), new Date(0).getDate(), new Date(0).getDay(), new Date(0).getHours()]`,
	`new Date(0).getTimezoneOffset()`,
	`String(new Date(0))`,
	`new Date(0).toString()`,
	`new Date(0).toDateString()`,
	`new Date(0).toUTCString()`,
	`new Date(86400000 * 365.25 * 30).toISOString()`,
	`JSON.stringify({d: new Date(0)})`,
	`new Date(0).toJSON()`,
	`new Date(NaN).getTime()`,
	`String(new Date(NaN))`,
	`const d = new Date(Date.UTC(2024, 0, 31)); d.setUTCMonth(1); d.toISOString()`,
	`const d = new Date(Date.UTC(2024, 0, 1)); d.setUTCDate(d.getUTCDate() + 45); d.toISOString()`,
	`(new Date('2024-12-25T00:00:00Z') - new Date('2024-01-01T00:00:00Z')) / 86400000`,
	`new Date(0).toLocaleDateString()`,
	`new Date(0).toLocaleTimeString()`,
	`new Date(0).toLocaleString()`,
	`new Date(Date.UTC(2024, 6, 4)).getUTCDay()`,
	`Date.parse('2024-01-01T00:00:00.000Z')`,
	`typeof Date.now()`,
	`new Date(2024, 0, 1).getTime() === Date.UTC(2024, 0, 1)`,
	`new Date(8.64e15 + 1).getTime()`,
	`new Date(0).toLocaleDateString('en-US', {month: 'long', day: 'numeric', year: 'numeric'})`,
	`new Date(Date.UTC(2024, 0, 1, 9, 5)).toISOString().slice(11, 16)`,
	// Regular expressions.
	`'2024-05-06'.match(/(\d+)-(\d+)-(\d+)/).slice(1)`,
	`/(?<y>\d{4})-(?<m>\d\d)/.exec('2024-05').groups.y`,
	`'2024-05'.match(/(?<y>\d{4})-(?<m>\d\d)/).groups.m`,
	`'2024-05'.replace(/(?<y>\d{4})-(?<m>\d\d)/, '$<m>/$<y>')`,
	`'a-b-c'.replaceAll(/(?<x>\w)/g, '[$<x>]')`,
	`[...'a1b2c3'.matchAll(/(?<l>[a-z])(?<d>\d)/g)].map(m => m.groups.l + m.groups.d)`,
	`'aaa'.replace(/a/g, '$&$&')`,
	`'John Smith'.replace(/(\w+)\s(\w+)/, '$2, $1')`,
	`'x'.replace('x', '$$')`,
	`'abc'.replace(/b/, "[$\x60|$']")`,
	`/^[\w.]+@[\w.]+\.\w+$/.test('a.b@c.com')`,
	`'one two  three'.split(/\s+/)`,
	`'a,b;c'.split(/[,;]/)`,
	`'CamelCaseString'.replace(/([A-Z])/g, ' $1').trim()`,
	`'aBc'.replace(/b/i, 'X')`,
	`/a.c/s.test('a\nc')`,
	`'x1y22z333'.match(/\d+/g)`,
	`/(\d+)/.exec('abc 123 def').index`,
	`String(/a+b/gi)`,
	`/a/g.flags`,
	`new RegExp('a+', 'g').source`,
	`'tEsT'.replace(/[a-z]/g, c => c.toUpperCase())`,
	`const re = /o/g; re.test('foo'); re.lastIndex`,
	`'😀a'.match(/./gu).length`,
	`'a.b*c'.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')`,
	`/(?<=\$)\d+/.exec('cost: $42')[0]`,
	`/\bfoo\b/.test('a foo b')`,
	`'2024-01-02'.replace(/(\d+)-(\d+)-(\d+)/, (m, y, mo, d) => [d, mo, y].join('/'))`,
	`'abcabc'.lastIndexOf('c')`,
	`'a\tb'.split(/\t/)`,
	// Number formatting.
	`0.7016570306969449`,
	`String(0.7016570306969449)`,
	`(0.7016570306969449).toString()`,
	`'' + 0.7016570306969449`,
	`0.1 + 0.2`,
	`String(0.1 + 0.2)`,
	`1 / 3`,
	`[1e21, 1e-7, 123e-20, 1.5e300, 2 ** 53, -1e-7]`,
	`String(1e21)`,
	`String(123456789012345680000)`,
	`(255).toString(16)`,
	`(255).toString(2)`,
	`(3.14159).toFixed(2)`,
	`(0.000001234).toPrecision(2)`,
	`(1234.5678).toExponential(3)`,
	`(1.005).toFixed(2)`,
	`(1234567.891).toLocaleString()`,
	`(0.5).toLocaleString()`,
	`(-1234.5).toLocaleString()`,
	`Number('12px')`,
	`parseInt('12px')`,
	`parseFloat('3.14abc')`,
	`Number.parseFloat('1e3')`,
	`Number('0x1f')`,
	`[Number.MAX_SAFE_INTEGER, Number.EPSILON > 0, Number.isInteger(5.0), Number.isSafeInteger(2 ** 53)]`,
	`Math.round(2.5) + Math.round(-2.5)`,
	`[Math.max(), Math.min(), Math.max(1, 3, 2)]`,
	`Math.hypot(3, 4)`,
	`[Math.trunc(-4.7), Math.sign(-3), Math.cbrt(27), Math.log2(8)]`,
	`Math.sqrt(2)`,
	`Math.PI * 2`,
	`[5 % 3, -5 % 3, 2 ** 10, 7 / 2 | 0]`,
	`(1e21).toFixed(2)`,
	`[0.1 * 3, 0.3 / 0.1]`,
	`[1, 2, 3].map(x => x / 7)`,
	`JSON.stringify([0.7016570306969449, 1e21])`,
	`[1.1, 2.2, 3.3].reduce((a, b) => a + b)`,
	`(123.456).toFixed(0)`,
	`Number((0.1 + 0.2).toFixed(10))`,
	`[-0 === 0, Object.is(-0, 0), 1 / -0]`,
	`String(-0)`,
	`[NaN === NaN, Number.isNaN(NaN), isNaN('x')]`,
	`~~3.7`,
	// Sorting and comparison.
	`[10, 9, 1, 2].sort()`,
	`[10, 9, 1, 2].sort((a, b) => a - b)`,
	`['b', 'a', 'C'].sort()`,
	`['b', 'a', 'C'].sort((a, b) => a.localeCompare(b))`,
	`['é', 'e', 'z', 'a'].sort()`,
	`['é', 'e', 'z', 'a'].sort((a, b) => a.localeCompare(b))`,
	`'a'.localeCompare('B')`,
	`'a' < 'B'`,
	`['\uff5e', '\ud83d\ude00'].sort().map(s => s.codePointAt(0))`,
	`'\uff5e' < '\ud83d\ude00'`,
	`[{n: 'b', v: 2}, {n: 'a', v: 2}, {n: 'c', v: 1}].sort((x, y) => x.v - y.v).map(o => o.n)`,
	`[3, 1, 2].toSorted()`,
	`[3, 1, 2].toReversed()`,
	`[undefined, 3, null, 1].sort()`,
	`const a = [5, 1, 4]; a.sort(); a`,
	`[1, 2, 3].sort(() => 0)`,
	`['10', '9', '1'].sort((a, b) => a - b)`,
	`[true, false, true].sort()`,
	`[[2, 'b'], [1, 'a']].sort()`,
	`['B', 'a', 'c'].sort((a, b) => a.toLowerCase() < b.toLowerCase() ? -1 : 1)`,
	// JSON.
	`JSON.stringify({a: 1, b: [1, 2], c: 'x'})`,
	`JSON.stringify({a: 1, b: {c: 2}}, null, 2)`,
	`JSON.stringify({a: undefined, b: () => 1, c: Symbol('s')})`,
	`JSON.stringify([undefined, function () {}])`,
	`JSON.parse('{"a":[1,2,{"b":null}]}')`,
	`JSON.parse('1e3')`,
	`JSON.stringify('he said "hi"\n')`,
	`JSON.stringify({k: 1}, (k, v) => typeof v === 'number' ? v * 2 : v)`,
	`JSON.stringify({b: 1, a: 2}, ['a'])`,
	`JSON.parse('[1, 2]', (k, v) => Array.isArray(v) ? v : v * 10)`,
	`JSON.stringify(new Map([[1, 2]]))`,
	`JSON.stringify({toJSON() { return 42 }})`,
	`JSON.stringify('\u2028')`,
	`JSON.stringify({a: NaN, b: Infinity})`,
	`JSON.stringify([new Set([1])])`,
	`JSON.stringify('é😀')`,
	`JSON.stringify({a: [{}]}, null, '\t')`,
	`JSON.parse(JSON.stringify({x: 1.5, y: [true, null]}))`,
	`JSON.stringify(Object.create({inherited: 1}))`,
	`JSON.stringify({date: new Date(Date.UTC(2024, 0, 1))})`,
	// BigInt.
	`String(2n ** 64n)`,
	`String(12345678901234567890n * 3n)`,
	`typeof 1n`,
	`String(BigInt(Number.MAX_SAFE_INTEGER) + 2n)`,
	`String(-7n / 2n)`,
	`(255n).toString(16)`,
	`BigInt.asUintN(8, 257n).toString()`,
	`1n < 2`,
	`String(BigInt('0x1f'))`,
	`Number(2n ** 60n)`,
	// Async.
	`(async () => { const v = await Promise.resolve(5); return v * 2 })()`,
	`(async () => (await Promise.all([1, Promise.resolve(2), 3])).join())()`,
	`(async () => { const r = await Promise.allSettled([Promise.resolve(1), Promise.reject(new Error('x'))]); return r.map(x => x.status) })()`,
	`(async () => await Promise.race([Promise.resolve('a'), new Promise(() => {})]))()`,
	`(async () => await Promise.any([Promise.reject(1), Promise.resolve(2)]))()`,
	`(async () => { try { await Promise.reject(new TypeError('t')) } catch (e) { return e.name + ':' + e.message } })()`,
	`(async () => { const out = []; for (const p of [1, 2, 3].map(async x => x * 2)) out.push(await p); return out })()`,
	`(async () => { const log = []; const p = Promise.resolve().then(() => log.push('then')); log.push('sync'); await p; return log })()`,
	`(async () => { async function* g() { yield 1; yield 2 } const out = []; for await (const v of g()) out.push(v); return out })()`,
	`(async () => { const results = await Promise.all([1, 2].map(async n => { await null; return n + 1 })); return results })()`,
	// Strings.
	`'abc'.at(-1)`,
	`'hello world'.split(' ').map(w => w[0].toUpperCase() + w.slice(1)).join(' ')`,
	`'abc'.padStart(6, '-')`,
	`'abc'.padEnd(6, '12')`,
	`'  x  '.trim() + '|' + '  x'.trimStart() + '|' + 'x  '.trimEnd()`,
	`'ab'.repeat(3)`,
	`'Hello'.charCodeAt(1)`,
	`'😀'.length`,
	`[...'😀a'].length`,
	`'😀'.codePointAt(0)`,
	`String.fromCodePoint(128512).length`,
	`'abc'.includes('bc') && 'abc'.startsWith('ab') && 'abc'.endsWith('c')`,
	`'a-b-c'.replaceAll('-', '+')`,
	`'ß'.toUpperCase()`,
	`'İ'.toLowerCase().length`,
	`'Straße'.normalize('NFD').length`,
	`'abc'.substring(2, 0)`,
	`'abc'.substr(-2, 1)`,
	`'abcdef'.slice(-3, -1)`,
	`'a,b,,c'.split(',')`,
	`'abc'.split('')`,
	`'a'.concat('b', 1, null)`,
	`'x'.localeCompare('x')`,
	`encodeURIComponent('a b&c/é')`,
	`decodeURIComponent('%E2%9C%93')`,
	`escape ? typeof escape : 0`,
	`btoa ? 1 : 0`,
	`'abc'.search(/c/)`,
	`'%s'.indexOf('s')`,
	`['a', 'b'].join(', ')`,
	`String([1, [2, 3]])`,
	`String({})`,
	`String(null) + String(undefined)`,
	`'' + [1, 2] + {}`,
	"`${1 + 1}px`",
	`'abc'.isWellFormed()`,
	`'A'.toLowerCase() === 'a'`,
	// Arrays.
	`[1, [2, [3, [4]]]].flat(Infinity)`,
	`[1, 2, 3].flatMap(x => [x, x * 2])`,
	`Array.from({length: 3}, (_, i) => i * i)`,
	`Array.from('abc')`,
	`Array.of(7, 8)`,
	`[1, 2, 3].includes(2)`,
	`[1, 2, 3, 4].findLast(x => x % 2 === 1)`,
	`[1, 2, 3, 4].findLastIndex(x => x > 5)`,
	`[1, 2, 3].at(-1)`,
	`[1, 2, 3].with(1, 9)`,
	`[1, 2, 3, 4, 5].toSpliced(1, 2)`,
	`new Array(3).fill(0)`,
	`[1, 2, 3].reduce((a, b) => a + b, 0)`,
	`[1, 2, 3].reduceRight((a, b) => a + b)`,
	`[3, 1, 2].indexOf(2)`,
	`[1, 2, 3].some(x => x > 2) && [1, 2, 3].every(x => x > 0)`,
	`[1, 2, 3].copyWithin(0, 1)`,
	`Array.isArray([]) && !Array.isArray({length: 0})`,
	`[...new Set([3, 1, 3, 2])]`,
	`[1, 2, 3].entries().next().value`,
	`[..."hello"].reverse().join('')`,
	`[1, 2, 3, 4].filter(x => x % 2).map(x => x * 10)`,
	`const [a, , b = 5, ...rest] = [1, 2, undefined, 4, 5]; [a, b, rest]`,
	`Object.entries({a: 1, b: 2}).map(([k, v]) => k + v)`,
	`Object.fromEntries([['a', 1], ['b', 2]])`,
	`Object.groupBy([1, 2, 3, 4], x => x % 2 ? 'odd' : 'even')`,
	`[...Map.groupBy([1, 2, 3], x => x > 1).keys()]`,
	`[1, 2, 3].join()`,
	`[null, undefined, 1].join('-')`,
	`[0, 1, 2].map(String)`,
	`['1', '2', '3'].map(Number)`,
	`['1', '2', '3'].map(parseInt)`,
	`Array.prototype.concat.call([1], [2], 3)`,
	`[[1, 2], [3, 4]].map(([x, y]) => x * y)`,
	// Objects, Sets and Maps, errors.
	`Object.keys({b: 1, a: 2, 1: 3, 0: 4})`,
	`Object.assign({}, {a: 1}, {b: 2})`,
	`({...{a: 1}, b: 2})`,
	`structuredClone ? 1 : 0`,
	`const m = new Map([['a', 1]]); m.set('b', 2); [...m.entries()]`,
	`const s = new Set([1, 2]); [s.has(1), s.size]`,
	`[...new Set([1, 2]).union(new Set([2, 3]))]`,
	`[...new Set([1, 2, 3]).intersection(new Set([2, 3, 4]))]`,
	`[...new Set([1, 2, 3]).difference(new Set([2]))]`,
	`[...new Set([1, 2]).symmetricDifference(new Set([2, 3]))]`,
	`[new Set([1]).isSubsetOf(new Set([1, 2])), new Set([1, 2]).isSupersetOf(new Set([3])), new Set([1]).isDisjointFrom(new Set([2]))]`,
	`[Error.isError(new TypeError('x')), Error.isError({name: 'Error'})]`,
	`['ab\ud800', 'ok'].map(s => s.isWellFormed())`,
	`'a\udc00b'.toWellFormed().charCodeAt(1)`,
	`JSON.stringify(Object.groupBy(['apple', 'avocado', 'banana'], w => w[0]))`,
	`new Error('boom').message`,
	`String(new RangeError('r'))`,
	`(() => { try { null.x } catch (e) { return e.constructor.name } })()`,
	`(() => { try { undefinedVar } catch (e) { return e.name } })()`,
	`new Error('x', {cause: 'y'}).cause`,
	`class A { #p = 1; get p() { return this.#p } static s = 2 } [new A().p, A.s]`,
	`Object.getOwnPropertyNames(class { static m() {} }).sort()`,
	`typeof globalThis`,
	`[typeof null, typeof [], typeof (() => 1), typeof Symbol()]`,
	`const o = {a: {b: null}}; [o?.a?.b?.c, o.x ?? 'dflt']`,
	`let x = 0; x ||= 5; let y = 1; y &&= 7; [x, y]`,
	`Array.from(new Uint8Array([1, 2, 300]))`,
	`Array.from(new Float32Array([0.1]))`,
	`new TextEncoder ? 1 : 0`,
	`Object.entries(new Uint8Array([5, 6]))`,
	`[1, 2, 3].map(n => n.toString().padStart(3, '0')).join(':')`,
	`Number.prototype.toString.call(0.7016570306969449)`,
	`JSON.stringify({v: 0.7016570306969449})`,
	`[0.7016570306969449].join()`,
	"`${0.7016570306969449}`",
}

// knownNodeDifferences are the snippets whose output differs from Node's on
// the goja version loom runs on, with why. The doc's table lists them. A
// snippet that starts to match, or a difference not listed here, fails the
// test, so the list stays true.
var knownNodeDifferences = map[string]string{
	`new Date(0).toLocaleDateString('en-US', {month: 'long', day: 'numeric', year: 'numeric'})`: "no Intl: locales and options are ignored",
	`['\uff5e', '\ud83d\ude00'].sort().map(s => s.codePointAt(0))`:                              "strings compare by code point, not UTF-16 unit",
	`'\uff5e' < '\ud83d\ude00'`:   "strings compare by code point, not UTF-16 unit",
	`'' + 0.7016570306969449`:     "implicit number to string conversion has goja's digit bug",
	`[0.7016570306969449].join()`: "implicit number to string conversion has goja's digit bug",
	"(async () => { async function* g() { yield 1; yield 2 } const out = []; for await (const v of g()) out.push(v); return out })()": "for await is not supported",
	"`${0.7016570306969449}`":                    "implicit number to string conversion has goja's digit bug",
	`JSON.stringify([0.7016570306969449, 1e21])`: "JSON.stringify writes numbers with goja's digit bug",
	`JSON.stringify({v: 0.7016570306969449})`:    "JSON.stringify writes numbers with goja's digit bug",
}

// specAnswers are the values of snippets that use built-ins newer than
// the Node on the machine: when Node throws on one, the sandbox is
// compared with the answer the spec gives.
var specAnswers = map[string]string{
	`[...new Set([1, 2]).union(new Set([2, 3]))]`:                                                                                       `[1,2,3]`,
	`[...new Set([1, 2, 3]).intersection(new Set([2, 3, 4]))]`:                                                                          `[2,3]`,
	`[...new Set([1, 2, 3]).difference(new Set([2]))]`:                                                                                  `[1,3]`,
	`[...new Set([1, 2]).symmetricDifference(new Set([2, 3]))]`:                                                                         `[1,3]`,
	`[new Set([1]).isSubsetOf(new Set([1, 2])), new Set([1, 2]).isSupersetOf(new Set([3])), new Set([1]).isDisjointFrom(new Set([2]))]`: `[true,false,true]`,
	`[Error.isError(new TypeError('x')), Error.isError({name: 'Error'})]`:                                                               `[true,false]`,
	`Object.groupBy([1, 2, 3, 4], x => x % 2 ? 'odd' : 'even')`:                                                                         `{"odd":[1,3],"even":[2,4]}`,
	`[...Map.groupBy([1, 2, 3], x => x > 1).keys()]`:                                                                                    `[false,true]`,
	`JSON.stringify(Object.groupBy(['apple', 'avocado', 'banana'], w => w[0]))`:                                                         `"{\"a\":[\"apple\",\"avocado\"],\"b\":[\"banana\"]}"`,
}

// nonFinite are the exporter's tags for numbers JSON cannot hold; Node's
// JSON.stringify writes null for them.
var nonFinite = strings.NewReplacer(`{"$number":"NaN"}`, "null", `{"$number":"Infinity"}`, "null", `{"$number":"-Infinity"}`, "null")

// TestNodeConformance runs every snippet in the sandbox and in Node (with
// TZ=UTC) and compares the JSON forms of their values.
func TestNodeConformance(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the sandbox-versus-Node conformance table needs it (apt-get install nodejs)")
	}
	ver, err := exec.Command(node, "--version").Output()
	require.NoError(t, err)
	if major, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(string(ver)), "v"), "."); len(major) < 2 || major < "20" {
		t.Skipf("node %s is older than 20: the table compares with Node 20 or newer", strings.TrimSpace(string(ver)))
	}
	in, err := json.Marshal(nodeSnippets)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "testdata/node_conformance.js")
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	require.NoError(t, err)
	var want []string
	require.NoError(t, json.Unmarshal(out, &want))
	require.Len(t, want, len(nodeSnippets))

	e, err := NewInProcess(InProcessConfig{Limits: Limits{Timeout: 20 * time.Second}})
	require.NoError(t, err)
	for i, code := range nodeSnippets {
		res, err := e.Run(context.Background(), code)
		var got string
		var se *Error
		switch {
		case err == nil:
			got = nonFinite.Replace(string(res.Value))
		case errors.As(err, &se) && se.Kind == KindException:
			got = "throws:" + se.Name
		default:
			got = "error:" + err.Error()
		}
		if a, ok := specAnswers[code]; ok && strings.HasPrefix(want[i], "throws:") {
			want[i] = a
		}
		reason, known := knownNodeDifferences[code]
		switch {
		case got != want[i] && !known:
			t.Errorf("snippet %d differs from Node:\n  code:    %s\n  sandbox: %s\n  node:    %s", i, code, got, want[i])
		case got == want[i] && known:
			t.Errorf("snippet %d now matches Node; remove it from knownNodeDifferences (%s):\n  code: %s", i, reason, code)
		}
	}
	for code := range knownNodeDifferences {
		require.Contains(t, nodeSnippets, code, "a known difference must be a snippet")
	}
}
