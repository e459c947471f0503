package evals

import "sort"

// override replaces or completes the translation of one HumanEval problem
// the translator does not handle alone: tests with loops, randomness or
// comprehensions, integers beyond JavaScript's exact range, and helper
// functions a prompt defines in Python.
type override struct {
	// Why the problem needs a hand-written part; reported with the problem.
	Why string
	// Prelude is JavaScript helpers, shown in the prompt and defined for
	// the solution and the tests.
	Prelude string
	// Tests replace the translated tests; empty keeps the translation.
	Tests string
	// Drop lists Python test lines (as written, without indentation) left
	// out of the translation: asserts no JavaScript answer can pass, since
	// they tell apart values JavaScript does not (3.0 and 3 are one number).
	Drop []string
	// Note is added to the prompt's docstring where the expected answers
	// follow a Python rule the docstring leaves unsaid.
	Note string
}

// seeded is a deterministic random generator for the tests that draw
// random inputs in Python (Park–Miller, exact in doubles): the same inputs
// on every run.
const seeded = `var __seed = 42;
function __randint(lo, hi) { __seed = (__seed * 16807) % 2147483647; return lo + (__seed % (hi - lo + 1)); }
function __word() { var s = "", n = __randint(10, 20); for (var i = 0; i < n; i++) s += String.fromCharCode(97 + __randint(0, 25)); return s; }
`

// overrides are every hand-written part of HumanEval, by task id. Each
// states why; TestOverridesAreNeeded checks that each still is.
var overrides = map[string]override{
	"HumanEval/10": {
		Why: "the prompt defines the helper is_palindrome in Python; the prelude gives it in JavaScript",
		Prelude: `function isPalindrome(string) { return string === Array.from(string).reverse().join(""); }
var is_palindrome = isPalindrome;`,
	},
	"HumanEval/32": {
		Why: "the prompt defines poly in Python and the test loops over 100 random polynomials; the prelude gives poly, the test draws the same kind of polynomials from a seeded generator",
		Prelude: `/** Evaluates the polynomial with coefficients xs at x: xs[0] + xs[1] * x + ... + xs[n] * x^n. */
function poly(xs, x) { var s = 0; for (var i = 0; i < xs.length; i++) s += xs[i] * Math.pow(x, i); return s; }`,
		Tests: seeded + `for (var t = 0; t < 100; t++) {
  var n = 2 * __randint(1, 4), coeffs = [];
  for (var j = 0; j < n; j++) { var c = __randint(-10, 10); coeffs.push(c === 0 ? 1 : c); }
  var solution = candidate(coeffs.slice());
  assert.ok(Math.abs(poly(coeffs, solution)) < 1e-4, "poly(" + JSON.stringify(coeffs) + ", findZero(...)) is not 0");
}`,
	},
	"HumanEval/38": {
		Why: "the prompt defines encode_cyclic in Python and the test encodes 100 random strings; the prelude gives encodeCyclic, the test draws strings from a seeded generator",
		Prelude: `/** Returns the string encoded by cycling groups of three characters. */
function encodeCyclic(s) {
  var out = "";
  for (var i = 0; i < s.length; i += 3) { var g = s.slice(i, i + 3); out += g.length === 3 ? g.slice(1) + g[0] : g; }
  return out;
}
var encode_cyclic = encodeCyclic;`,
		Tests: seeded + `for (var t = 0; t < 100; t++) {
  var str = __word();
  assert.deepStrictEqual(candidate(encodeCyclic(str)), str, "decodeCyclic(encodeCyclic(" + JSON.stringify(str) + "))");
}`,
	},
	"HumanEval/44": {
		Why: "the test ends with a for loop over bases 2..7",
		Tests: `assert.deepStrictEqual(candidate(8, 3), "22");
assert.deepStrictEqual(candidate(9, 3), "100");
assert.deepStrictEqual(candidate(234, 2), "11101010");
assert.deepStrictEqual(candidate(16, 2), "10000");
assert.deepStrictEqual(candidate(8, 2), "1000");
assert.deepStrictEqual(candidate(7, 2), "111");
for (var x = 2; x < 8; x++) assert.deepStrictEqual(candidate(x, x + 1), String(x), "changeBase(" + x + ", " + (x + 1) + ")");`,
	},
	"HumanEval/50": {
		Why: "the prompt defines encode_shift in Python and the test encodes 100 random strings; the prelude gives encodeShift, the test draws strings from a seeded generator",
		Prelude: `/** Returns the string encoded by shifting every character by 5 in the alphabet. */
function encodeShift(s) {
  return Array.from(s).map(function (ch) { return String.fromCharCode(((ch.charCodeAt(0) + 5 - 97) % 26) + 97); }).join("");
}
var encode_shift = encodeShift;`,
		Tests: seeded + `for (var t = 0; t < 100; t++) {
  var str = __word();
  assert.deepStrictEqual(candidate(encodeShift(str)), str, "decodeShift(encodeShift(" + JSON.stringify(str) + "))");
}`,
	},
	"HumanEval/53": {
		Why: "the test ends with a loop over 100 random pairs; the test draws them from a seeded generator",
		Tests: seeded + `assert.deepStrictEqual(candidate(0, 1), 1);
assert.deepStrictEqual(candidate(1, 0), 1);
assert.deepStrictEqual(candidate(2, 3), 5);
assert.deepStrictEqual(candidate(5, 7), 12);
assert.deepStrictEqual(candidate(7, 5), 12);
for (var t = 0; t < 100; t++) {
  var x = __randint(0, 1000), y = __randint(0, 1000);
  assert.deepStrictEqual(candidate(x, y), x + y, "add(" + x + ", " + y + ")");
}`,
	},
	"HumanEval/92": {
		Why:  "one assert expects any_int(3.0, 4, 7) to be False because 3.0 is a Python float; in JavaScript 3.0 and 3 are the same number, so no answer can pass both it and any_int(3, 4, 7) == True; it is left out",
		Drop: []string{`assert candidate(3.0,4,7)==False, "This prints if this assert fails 10 (also good for debugging!)"`},
	},
	"HumanEval/103": {
		Why:  "the expected answers round halves to even, as Python's round does (964..977 averages 970.5 and expects 970), which the docstring does not say; the prompt says it",
		Note: "Round a half to the even neighbour, as Python's round does: 970.5 rounds to 970, 996.5 to 996.",
	},
	"HumanEval/114": {
		Why: "-9999999999999999 is beyond JavaScript's exact integer range (2^53); that case uses -999999999999999 instead",
		Tests: `assert.deepStrictEqual(candidate([2, 3, 4, 1, 2, 4]), 1);
assert.deepStrictEqual(candidate([-1, -2, -3]), -6);
assert.deepStrictEqual(candidate([-1, -2, -3, 2, -10]), -14);
assert.deepStrictEqual(candidate([-999999999999999]), -999999999999999);
assert.deepStrictEqual(candidate([0, 10, 20, 1000000]), 0);
assert.deepStrictEqual(candidate([-1, -2, -3, 10, -5]), -6);
assert.deepStrictEqual(candidate([100, -1, -2, -3, 10, -5]), -6);
assert.deepStrictEqual(candidate([10, 11, 13, 8, 3, 4]), 3);
assert.deepStrictEqual(candidate([100, -33, 32, -1, 0, -2]), -33);
assert.deepStrictEqual(candidate([-10]), -10);
assert.deepStrictEqual(candidate([7]), 7);
assert.deepStrictEqual(candidate([1, -1]), -1);`,
	},
	"HumanEval/151": {
		Why: "the test computes its last expected value with a list comprehension",
		Tests: `assert.deepStrictEqual(candidate([]), 0);
assert.deepStrictEqual(candidate([5, 4]), 25);
assert.deepStrictEqual(candidate([0.1, 0.2, 0.3]), 0);
assert.deepStrictEqual(candidate([-10, -20, -30]), 0);
assert.deepStrictEqual(candidate([-1, -2, 8]), 0);
assert.deepStrictEqual(candidate([0.2, 3, 5]), 34);
var lst = [];
for (var i = -99; i < 100; i += 2) lst.push(i);
var oddSum = lst.filter(function (i) { return i % 2 !== 0 && i > 0; }).reduce(function (a, i) { return a + i * i; }, 0);
assert.deepStrictEqual(candidate(lst), oddSum);`,
	},
}

// Overrides lists the ids of the HumanEval problems with a hand-written
// part (see the reasons in overrides.go), in order.
func Overrides() []string {
	ids := make([]string, 0, len(overrides))
	for id := range overrides {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// OverrideReason says why a HumanEval problem has a hand-written part; ok
// is false when it has none.
func OverrideReason(id string) (why string, ok bool) {
	o, ok := overrides[id]
	return o.Why, ok
}
