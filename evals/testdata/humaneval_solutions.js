// Known-good JavaScript answers to the 164 HumanEval problems, written for
// loom (MIT, like the rest of the repository). Each section starts with a
// line "//== HumanEval/N" and holds one answer as a model would give it: the
// whole function, with any helpers it needs. TestHumanEvalReferenceSolutions
// runs each through the whole harness and requires every problem to pass.

//== HumanEval/0
function hasCloseElements(numbers, threshold) {
  for (var i = 0; i < numbers.length; i++)
    for (var j = i + 1; j < numbers.length; j++)
      if (Math.abs(numbers[i] - numbers[j]) < threshold) return true;
  return false;
}

//== HumanEval/1
function separateParenGroups(paren_string) {
  var out = [], cur = "", depth = 0;
  for (var i = 0; i < paren_string.length; i++) {
    var c = paren_string[i];
    if (c === "(") { depth++; cur += c; }
    else if (c === ")") { depth--; cur += c; if (depth === 0) { out.push(cur); cur = ""; } }
  }
  return out;
}

//== HumanEval/2
function truncateNumber(number) {
  return number % 1;
}

//== HumanEval/3
function belowZero(operations) {
  var balance = 0;
  for (var i = 0; i < operations.length; i++) {
    balance += operations[i];
    if (balance < 0) return true;
  }
  return false;
}

//== HumanEval/4
function meanAbsoluteDeviation(numbers) {
  var mean = numbers.reduce(function (a, b) { return a + b; }, 0) / numbers.length;
  return numbers.reduce(function (a, x) { return a + Math.abs(x - mean); }, 0) / numbers.length;
}

//== HumanEval/5
function intersperse(numbers, delimeter) {
  var out = [];
  for (var i = 0; i < numbers.length; i++) {
    if (i > 0) out.push(delimeter);
    out.push(numbers[i]);
  }
  return out;
}

//== HumanEval/6
function parseNestedParens(paren_string) {
  return paren_string.split(" ").filter(function (g) { return g !== ""; }).map(function (g) {
    var depth = 0, max = 0;
    for (var i = 0; i < g.length; i++) {
      if (g[i] === "(") { depth++; if (depth > max) max = depth; }
      else if (g[i] === ")") depth--;
    }
    return max;
  });
}

//== HumanEval/7
function filterBySubstring(strings, substring) {
  return strings.filter(function (s) { return s.indexOf(substring) >= 0; });
}

//== HumanEval/8
function sumProduct(numbers) {
  var sum = 0, product = 1;
  for (var i = 0; i < numbers.length; i++) { sum += numbers[i]; product *= numbers[i]; }
  return [sum, product];
}

//== HumanEval/9
function rollingMax(numbers) {
  var out = [], max = null;
  for (var i = 0; i < numbers.length; i++) {
    if (max === null || numbers[i] > max) max = numbers[i];
    out.push(max);
  }
  return out;
}

//== HumanEval/10
function makePalindrome(string) {
  if (string === "") return "";
  var start = 0;
  while (!isPalindrome(string.slice(start))) start++;
  return string + string.slice(0, start).split("").reverse().join("");
}

//== HumanEval/11
function stringXor(a, b) {
  var out = "";
  for (var i = 0; i < a.length; i++) out += a[i] === b[i] ? "0" : "1";
  return out;
}

//== HumanEval/12
function longest(strings) {
  if (strings.length === 0) return null;
  var best = strings[0];
  for (var i = 1; i < strings.length; i++) if (strings[i].length > best.length) best = strings[i];
  return best;
}

//== HumanEval/13
function greatestCommonDivisor(a, b) {
  while (b !== 0) { var t = a % b; a = b; b = t; }
  return Math.abs(a);
}

//== HumanEval/14
function allPrefixes(string) {
  var out = [];
  for (var i = 1; i <= string.length; i++) out.push(string.slice(0, i));
  return out;
}

//== HumanEval/15
function stringSequence(n) {
  var parts = [];
  for (var i = 0; i <= n; i++) parts.push(String(i));
  return parts.join(" ");
}

//== HumanEval/16
function countDistinctCharacters(string) {
  var seen = {}, count = 0;
  var lower = string.toLowerCase();
  for (var i = 0; i < lower.length; i++) {
    if (!seen[lower[i]]) { seen[lower[i]] = true; count++; }
  }
  return count;
}

//== HumanEval/17
function parseMusic(music_string) {
  var beats = { "o": 4, "o|": 2, ".|": 1 };
  return music_string.split(" ").filter(function (n) { return n !== ""; }).map(function (n) { return beats[n]; });
}

//== HumanEval/18
function howManyTimes(string, substring) {
  var count = 0;
  for (var i = 0; i + substring.length <= string.length; i++) {
    if (string.slice(i, i + substring.length) === substring) count++;
  }
  return count;
}

//== HumanEval/19
function sortNumbers(numbers) {
  var names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
  return numbers.split(" ").filter(function (w) { return w !== ""; })
    .sort(function (a, b) { return names.indexOf(a) - names.indexOf(b); })
    .join(" ");
}

//== HumanEval/20
function findClosestElements(numbers) {
  var best = null, pair = null;
  for (var i = 0; i < numbers.length; i++) {
    for (var j = i + 1; j < numbers.length; j++) {
      var d = Math.abs(numbers[i] - numbers[j]);
      if (best === null || d < best) {
        best = d;
        pair = [Math.min(numbers[i], numbers[j]), Math.max(numbers[i], numbers[j])];
      }
    }
  }
  return pair;
}

//== HumanEval/21
function rescaleToUnit(numbers) {
  var min = Math.min.apply(null, numbers), max = Math.max.apply(null, numbers);
  return numbers.map(function (x) { return (x - min) / (max - min); });
}

//== HumanEval/22
function filterIntegers(values) {
  return values.filter(function (v) { return typeof v === "number" && Number.isInteger(v); });
}

//== HumanEval/23
function strlen(string) {
  return string.length;
}

//== HumanEval/24
function largestDivisor(n) {
  for (var i = n - 1; i > 0; i--) if (n % i === 0) return i;
  return 1;
}

//== HumanEval/25
function factorize(n) {
  var out = [];
  for (var d = 2; d * d <= n; d++) {
    while (n % d === 0) { out.push(d); n /= d; }
  }
  if (n > 1) out.push(n);
  return out;
}

//== HumanEval/26
function removeDuplicates(numbers) {
  var counts = new Map();
  numbers.forEach(function (x) { counts.set(x, (counts.get(x) || 0) + 1); });
  return numbers.filter(function (x) { return counts.get(x) === 1; });
}

//== HumanEval/27
function flipCase(string) {
  var out = "";
  for (var i = 0; i < string.length; i++) {
    var c = string[i], up = c.toUpperCase();
    out += c === up ? c.toLowerCase() : up;
  }
  return out;
}

//== HumanEval/28
function concatenate(strings) {
  return strings.join("");
}

//== HumanEval/29
function filterByPrefix(strings, prefix) {
  return strings.filter(function (s) { return s.slice(0, prefix.length) === prefix; });
}

//== HumanEval/30
function getPositive(l) {
  return l.filter(function (x) { return x > 0; });
}

//== HumanEval/31
function isPrime(n) {
  if (n < 2) return false;
  for (var d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}

//== HumanEval/32
function findZero(xs) {
  var begin = -1, end = 1;
  while (poly(xs, begin) * poly(xs, end) > 0) { begin *= 2; end *= 2; }
  while (end - begin > 1e-10) {
    var center = (begin + end) / 2;
    if (poly(xs, center) * poly(xs, begin) > 0) begin = center;
    else end = center;
  }
  return begin;
}

//== HumanEval/33
function sortThird(l) {
  var thirds = [];
  for (var i = 0; i < l.length; i += 3) thirds.push(l[i]);
  thirds.sort(function (a, b) { return a - b; });
  var out = l.slice();
  for (var j = 0; j < thirds.length; j++) out[3 * j] = thirds[j];
  return out;
}

//== HumanEval/34
function unique(l) {
  var out = [];
  l.forEach(function (x) { if (out.indexOf(x) < 0) out.push(x); });
  return out.sort(function (a, b) { return a - b; });
}

//== HumanEval/35
function maxElement(l) {
  var max = l[0];
  for (var i = 1; i < l.length; i++) if (l[i] > max) max = l[i];
  return max;
}

//== HumanEval/36
function fizzBuzz(n) {
  var count = 0;
  for (var i = 0; i < n; i++) {
    if (i % 11 === 0 || i % 13 === 0) {
      var s = String(i);
      for (var j = 0; j < s.length; j++) if (s[j] === "7") count++;
    }
  }
  return count;
}

//== HumanEval/37
function sortEven(l) {
  var evens = [];
  for (var i = 0; i < l.length; i += 2) evens.push(l[i]);
  evens.sort(function (a, b) { return a - b; });
  var out = l.slice();
  for (var j = 0; j < evens.length; j++) out[2 * j] = evens[j];
  return out;
}

//== HumanEval/38
function decodeCyclic(s) {
  var out = "";
  for (var i = 0; i < s.length; i += 3) {
    var g = s.slice(i, i + 3);
    out += g.length === 3 ? g[2] + g.slice(0, 2) : g;
  }
  return out;
}

//== HumanEval/39
function primeFib(n) {
  function prime(p) {
    if (p < 2) return false;
    for (var d = 2; d * d <= p; d++) if (p % d === 0) return false;
    return true;
  }
  var a = 0, b = 1;
  while (true) {
    var next = a + b;
    a = b;
    b = next;
    if (prime(b)) {
      n--;
      if (n === 0) return b;
    }
  }
}

//== HumanEval/40
function triplesSumToZero(l) {
  for (var i = 0; i < l.length; i++)
    for (var j = i + 1; j < l.length; j++)
      for (var k = j + 1; k < l.length; k++)
        if (l[i] + l[j] + l[k] === 0) return true;
  return false;
}

//== HumanEval/41
function carRaceCollision(n) {
  return n * n;
}

//== HumanEval/42
function incrList(l) {
  return l.map(function (x) { return x + 1; });
}

//== HumanEval/43
function pairsSumToZero(l) {
  for (var i = 0; i < l.length; i++)
    for (var j = i + 1; j < l.length; j++)
      if (l[i] + l[j] === 0) return true;
  return false;
}

//== HumanEval/44
function changeBase(x, base) {
  var out = "";
  while (x > 0) { out = String(x % base) + out; x = Math.floor(x / base); }
  return out;
}

//== HumanEval/45
function triangleArea(a, h) {
  return a * h / 2;
}

//== HumanEval/46
function fib4(n) {
  var seq = [0, 0, 2, 0];
  if (n < 4) return seq[n];
  for (var i = 4; i <= n; i++) {
    var next = seq[0] + seq[1] + seq[2] + seq[3];
    seq = [seq[1], seq[2], seq[3], next];
  }
  return seq[3];
}

//== HumanEval/47
function median(l) {
  var s = l.slice().sort(function (a, b) { return a - b; });
  var mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

//== HumanEval/48
function isPalindrome(text) {
  for (var i = 0, j = text.length - 1; i < j; i++, j--) if (text[i] !== text[j]) return false;
  return true;
}

//== HumanEval/49
function modp(n, p) {
  var result = 1 % p;
  for (var i = 0; i < n; i++) result = (result * 2) % p;
  return result;
}

//== HumanEval/50
function decodeShift(s) {
  var out = "";
  for (var i = 0; i < s.length; i++) out += String.fromCharCode(((s.charCodeAt(i) - 5 - 97 + 26) % 26) + 97);
  return out;
}

//== HumanEval/51
function removeVowels(text) {
  return text.replace(/[aeiou]/gi, "");
}

//== HumanEval/52
function belowThreshold(l, t) {
  return l.every(function (x) { return x < t; });
}

//== HumanEval/53
function add(x, y) {
  return x + y;
}

//== HumanEval/54
function sameChars(s0, s1) {
  function set(s) {
    var seen = {};
    for (var i = 0; i < s.length; i++) seen[s[i]] = true;
    return Object.keys(seen).sort().join("");
  }
  return set(s0) === set(s1);
}

//== HumanEval/55
function fib(n) {
  var a = 0, b = 1;
  for (var i = 0; i < n; i++) { var t = a + b; a = b; b = t; }
  return a;
}

//== HumanEval/56
function correctBracketing(brackets) {
  var depth = 0;
  for (var i = 0; i < brackets.length; i++) {
    depth += brackets[i] === "<" ? 1 : -1;
    if (depth < 0) return false;
  }
  return depth === 0;
}

//== HumanEval/57
function monotonic(l) {
  var up = true, down = true;
  for (var i = 1; i < l.length; i++) {
    if (l[i] < l[i - 1]) up = false;
    if (l[i] > l[i - 1]) down = false;
  }
  return up || down;
}

//== HumanEval/58
function common(l1, l2) {
  var out = [];
  l1.forEach(function (x) { if (l2.indexOf(x) >= 0 && out.indexOf(x) < 0) out.push(x); });
  return out.sort(function (a, b) { return a - b; });
}

//== HumanEval/59
function largestPrimeFactor(n) {
  var largest = 1;
  for (var d = 2; d * d <= n; d++) {
    while (n % d === 0) { largest = d; n /= d; }
  }
  return n > 1 ? Math.max(largest, n) : largest;
}

//== HumanEval/60
function sumToN(n) {
  return n * (n + 1) / 2;
}

//== HumanEval/61
function correctBracketing(brackets) {
  var depth = 0;
  for (var i = 0; i < brackets.length; i++) {
    depth += brackets[i] === "(" ? 1 : -1;
    if (depth < 0) return false;
  }
  return depth === 0;
}

//== HumanEval/62
function derivative(xs) {
  return xs.slice(1).map(function (c, i) { return c * (i + 1); });
}

//== HumanEval/63
function fibfib(n) {
  var seq = [0, 0, 1];
  if (n < 3) return seq[n];
  for (var i = 3; i <= n; i++) seq = [seq[1], seq[2], seq[0] + seq[1] + seq[2]];
  return seq[2];
}

//== HumanEval/64
function vowelsCount(s) {
  var count = 0, lower = s.toLowerCase();
  for (var i = 0; i < lower.length; i++) if ("aeiou".indexOf(lower[i]) >= 0) count++;
  if (lower.length > 0 && lower[lower.length - 1] === "y") count++;
  return count;
}

//== HumanEval/65
function circularShift(x, shift) {
  var s = String(x);
  if (shift > s.length) return s.split("").reverse().join("");
  return s.slice(s.length - shift) + s.slice(0, s.length - shift);
}

//== HumanEval/66
function digitSum(s) {
  var sum = 0;
  for (var i = 0; i < s.length; i++) {
    var c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) sum += c;
  }
  return sum;
}

//== HumanEval/67
function fruitDistribution(s, n) {
  var words = s.split(" ");
  for (var i = 0; i < words.length; i++) if (/^\d+$/.test(words[i])) n -= parseInt(words[i], 10);
  return n;
}

//== HumanEval/68
function pluck(arr) {
  var best = -1;
  for (var i = 0; i < arr.length; i++) {
    if (arr[i] % 2 === 0 && (best < 0 || arr[i] < arr[best])) best = i;
  }
  return best < 0 ? [] : [arr[best], best];
}

//== HumanEval/69
function search(lst) {
  var counts = {};
  lst.forEach(function (x) { counts[x] = (counts[x] || 0) + 1; });
  var best = -1;
  Object.keys(counts).forEach(function (k) {
    var v = Number(k);
    if (v > 0 && counts[k] >= v && v > best) best = v;
  });
  return best;
}

//== HumanEval/70
function strangeSortList(lst) {
  var s = lst.slice().sort(function (a, b) { return a - b; });
  var out = [], lo = 0, hi = s.length - 1, takeMin = true;
  while (lo <= hi) {
    out.push(takeMin ? s[lo++] : s[hi--]);
    takeMin = !takeMin;
  }
  return out;
}

//== HumanEval/71
function triangleArea(a, b, c) {
  if (a + b <= c || a + c <= b || b + c <= a) return -1;
  var p = (a + b + c) / 2;
  var area = Math.sqrt(p * (p - a) * (p - b) * (p - c));
  return Math.round(area * 100) / 100;
}

//== HumanEval/72
function willItFly(q, w) {
  var sum = 0;
  for (var i = 0; i < q.length; i++) {
    if (q[i] !== q[q.length - 1 - i]) return false;
    sum += q[i];
  }
  return sum <= w;
}

//== HumanEval/73
function smallestChange(arr) {
  var changes = 0;
  for (var i = 0; i < Math.floor(arr.length / 2); i++) if (arr[i] !== arr[arr.length - 1 - i]) changes++;
  return changes;
}

//== HumanEval/74
function totalMatch(lst1, lst2) {
  function total(l) { return l.reduce(function (a, s) { return a + s.length; }, 0); }
  return total(lst1) <= total(lst2) ? lst1 : lst2;
}

//== HumanEval/75
function isMultiplyPrime(a) {
  var factors = 0;
  for (var d = 2; d <= a; d++) {
    while (a % d === 0) { factors++; a /= d; }
  }
  return factors === 3;
}

//== HumanEval/76
function isSimplePower(x, n) {
  if (n === 1) return x === 1;
  var power = 1;
  while (power < x) power *= n;
  return power === x;
}

//== HumanEval/77
function iscube(a) {
  var r = Math.round(Math.cbrt(Math.abs(a)));
  return r * r * r === Math.abs(a);
}

//== HumanEval/78
function hexKey(num) {
  var count = 0;
  for (var i = 0; i < num.length; i++) if ("2357BD".indexOf(num[i]) >= 0) count++;
  return count;
}

//== HumanEval/79
function decimalToBinary(decimal) {
  return "db" + decimal.toString(2) + "db";
}

//== HumanEval/80
function isHappy(s) {
  if (s.length < 3) return false;
  for (var i = 0; i + 2 < s.length; i++) {
    if (s[i] === s[i + 1] || s[i + 1] === s[i + 2] || s[i] === s[i + 2]) return false;
  }
  return true;
}

//== HumanEval/81
function numericalLetterGrade(grades) {
  return grades.map(function (g) {
    if (g === 4.0) return "A+";
    if (g > 3.7) return "A";
    if (g > 3.3) return "A-";
    if (g > 3.0) return "B+";
    if (g > 2.7) return "B";
    if (g > 2.3) return "B-";
    if (g > 2.0) return "C+";
    if (g > 1.7) return "C";
    if (g > 1.3) return "C-";
    if (g > 1.0) return "D+";
    if (g > 0.7) return "D";
    if (g > 0.0) return "D-";
    return "E";
  });
}

//== HumanEval/82
function primeLength(string) {
  var n = string.length;
  if (n < 2) return false;
  for (var d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}

//== HumanEval/83
function startsOneEnds(n) {
  if (n === 1) return 1;
  return 18 * Math.pow(10, n - 2);
}

//== HumanEval/84
function solve(N) {
  var sum = 0, s = String(N);
  for (var i = 0; i < s.length; i++) sum += Number(s[i]);
  return sum.toString(2);
}

//== HumanEval/85
function add(lst) {
  var sum = 0;
  for (var i = 1; i < lst.length; i += 2) if (lst[i] % 2 === 0) sum += lst[i];
  return sum;
}

//== HumanEval/86
function antiShuffle(s) {
  return s.split(" ").map(function (w) {
    return w.split("").sort(function (a, b) { return a.charCodeAt(0) - b.charCodeAt(0); }).join("");
  }).join(" ");
}

//== HumanEval/87
function getRow(lst, x) {
  var out = [];
  for (var i = 0; i < lst.length; i++) {
    for (var j = lst[i].length - 1; j >= 0; j--) if (lst[i][j] === x) out.push([i, j]);
  }
  return out;
}

//== HumanEval/88
function sortArray(array) {
  if (array.length === 0) return [];
  var ascending = (array[0] + array[array.length - 1]) % 2 === 1;
  return array.slice().sort(function (a, b) { return ascending ? a - b : b - a; });
}

//== HumanEval/89
function encrypt(s) {
  var out = "";
  for (var i = 0; i < s.length; i++) {
    var c = s.charCodeAt(i);
    out += c >= 97 && c <= 122 ? String.fromCharCode(((c - 97 + 4) % 26) + 97) : s[i];
  }
  return out;
}

//== HumanEval/90
function nextSmallest(lst) {
  var u = [];
  lst.forEach(function (x) { if (u.indexOf(x) < 0) u.push(x); });
  u.sort(function (a, b) { return a - b; });
  return u.length < 2 ? null : u[1];
}

//== HumanEval/91
function isBored(S) {
  return S.split(/[.?!]\s*/).filter(function (s) { return s.slice(0, 2) === "I "; }).length;
}

//== HumanEval/92
function anyInt(x, y, z) {
  if (!Number.isInteger(x) || !Number.isInteger(y) || !Number.isInteger(z)) return false;
  return x + y === z || x + z === y || y + z === x;
}

//== HumanEval/93
function encode(message) {
  var out = "";
  for (var i = 0; i < message.length; i++) {
    var c = message[i];
    var swapped = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
    if ("aeiouAEIOU".indexOf(swapped) >= 0) swapped = String.fromCharCode(swapped.charCodeAt(0) + 2);
    out += swapped;
  }
  return out;
}

//== HumanEval/94
function skjkasdkd(lst) {
  function prime(n) {
    if (n < 2) return false;
    for (var d = 2; d * d <= n; d++) if (n % d === 0) return false;
    return true;
  }
  var best = 0;
  lst.forEach(function (x) { if (x > best && prime(x)) best = x; });
  return String(best).split("").reduce(function (a, d) { return a + Number(d); }, 0);
}

//== HumanEval/95
function checkDictCase(dict) {
  var keys = Object.keys(dict);
  if (keys.length === 0) return false;
  function lower(k) { return /[a-z]/.test(k) && !/[A-Z]/.test(k); }
  function upper(k) { return /[A-Z]/.test(k) && !/[a-z]/.test(k); }
  return keys.every(lower) || keys.every(upper);
}

//== HumanEval/96
function countUpTo(n) {
  var primes = [];
  for (var i = 2; i < n; i++) {
    var prime = true;
    for (var d = 2; d * d <= i; d++) if (i % d === 0) { prime = false; break; }
    if (prime) primes.push(i);
  }
  return primes;
}

//== HumanEval/97
function multiply(a, b) {
  return Math.abs(a % 10) * Math.abs(b % 10);
}

//== HumanEval/98
function countUpper(s) {
  var count = 0;
  for (var i = 0; i < s.length; i += 2) if ("AEIOU".indexOf(s[i]) >= 0) count++;
  return count;
}

//== HumanEval/99
function closestInteger(value) {
  var num = parseFloat(value);
  var r;
  if (Math.abs(num - Math.trunc(num)) === 0.5) r = num > 0 ? Math.ceil(num) : Math.floor(num);
  else r = Math.round(num);
  return r === 0 ? 0 : r;
}

//== HumanEval/100
function makeAPile(n) {
  var out = [];
  for (var i = 0; i < n; i++) out.push(n + 2 * i);
  return out;
}

//== HumanEval/101
function wordsString(s) {
  return s.split(/[\s,]+/).filter(function (w) { return w !== ""; });
}

//== HumanEval/102
function chooseNum(x, y) {
  if (x > y) return -1;
  if (y % 2 === 0) return y;
  if (x === y) return -1;
  return y - 1;
}

//== HumanEval/103
function roundedAvg(n, m) {
  if (m < n) return -1;
  var avg = (n + m) / 2;
  var r = Math.floor(avg);
  if (avg - r === 0.5 && r % 2 !== 0) r++; // round half to even, as Python's round
  else if (avg - r > 0.5) r++;
  return "0b" + r.toString(2);
}

//== HumanEval/104
function uniqueDigits(x) {
  return x.filter(function (n) {
    return String(n).split("").every(function (d) { return Number(d) % 2 === 1; });
  }).sort(function (a, b) { return a - b; });
}

//== HumanEval/105
function byLength(arr) {
  var names = ["One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"];
  return arr.filter(function (x) { return x >= 1 && x <= 9 && Number.isInteger(x); })
    .sort(function (a, b) { return b - a; })
    .map(function (x) { return names[x - 1]; });
}

//== HumanEval/106
function f(n) {
  var out = [];
  for (var i = 1; i <= n; i++) {
    var v = i % 2 === 0 ? 1 : 0;
    for (var j = 1; j <= i; j++) v = i % 2 === 0 ? v * j : v + j;
    out.push(v);
  }
  return out;
}

//== HumanEval/107
function evenOddPalindrome(n) {
  var even = 0, odd = 0;
  for (var i = 1; i <= n; i++) {
    var s = String(i);
    if (s === s.split("").reverse().join("")) { if (i % 2 === 0) even++; else odd++; }
  }
  return [even, odd];
}

//== HumanEval/108
function countNums(arr) {
  return arr.filter(function (n) {
    var ds = String(Math.abs(n)).split("").map(Number);
    if (n < 0) ds[0] = -ds[0];
    return ds.reduce(function (a, d) { return a + d; }, 0) > 0;
  }).length;
}

//== HumanEval/109
function moveOneBall(arr) {
  if (arr.length === 0) return true;
  var sorted = arr.slice().sort(function (a, b) { return a - b; });
  var start = arr.indexOf(Math.min.apply(null, arr));
  var rotated = arr.slice(start).concat(arr.slice(0, start));
  for (var i = 0; i < arr.length; i++) if (rotated[i] !== sorted[i]) return false;
  return true;
}

//== HumanEval/110
function exchange(lst1, lst2) {
  var odd = lst1.filter(function (x) { return x % 2 !== 0; }).length;
  var even = lst2.filter(function (x) { return x % 2 === 0; }).length;
  return even >= odd ? "YES" : "NO";
}

//== HumanEval/111
function histogram(test) {
  var counts = {}, max = 0;
  test.split(" ").forEach(function (w) {
    if (w === "") return;
    counts[w] = (counts[w] || 0) + 1;
    if (counts[w] > max) max = counts[w];
  });
  var out = {};
  Object.keys(counts).forEach(function (w) { if (counts[w] === max) out[w] = max; });
  return out;
}

//== HumanEval/112
function reverseDelete(s, c) {
  var kept = s.split("").filter(function (ch) { return c.indexOf(ch) < 0; }).join("");
  return [kept, kept === kept.split("").reverse().join("")];
}

//== HumanEval/113
function oddCount(lst) {
  return lst.map(function (s) {
    var n = s.split("").filter(function (d) { return Number(d) % 2 === 1; }).length;
    return "the number of odd elements " + n + "n the str" + n + "ng " + n + " of the " + n + "nput.";
  });
}

//== HumanEval/114
function minSubArraySum(nums) {
  var best = nums[0], cur = 0;
  for (var i = 0; i < nums.length; i++) {
    cur = Math.min(nums[i], cur + nums[i]);
    if (i === 0 || cur < best) best = cur;
  }
  return best;
}

//== HumanEval/115
function maxFill(grid, capacity) {
  return grid.reduce(function (total, row) {
    var water = row.reduce(function (a, b) { return a + b; }, 0);
    return total + Math.ceil(water / capacity);
  }, 0);
}

//== HumanEval/116
function sortArray(arr) {
  function ones(x) {
    var n = Math.abs(x), c = 0;
    while (n > 0) { c += n % 2; n = Math.floor(n / 2); }
    return c;
  }
  return arr.slice().sort(function (a, b) { return ones(a) - ones(b) || a - b; });
}

//== HumanEval/117
function selectWords(s, n) {
  return s.split(" ").filter(function (w) {
    if (w === "") return false;
    var consonants = 0;
    for (var i = 0; i < w.length; i++) {
      var c = w[i].toLowerCase();
      if (c >= "a" && c <= "z" && "aeiou".indexOf(c) < 0) consonants++;
    }
    return consonants === n;
  });
}

//== HumanEval/118
function getClosestVowel(word) {
  var vowels = "aeiouAEIOU";
  for (var i = word.length - 2; i > 0; i--) {
    if (vowels.indexOf(word[i]) >= 0 && vowels.indexOf(word[i + 1]) < 0 && vowels.indexOf(word[i - 1]) < 0) return word[i];
  }
  return "";
}

//== HumanEval/119
function matchParens(lst) {
  function balanced(s) {
    var depth = 0;
    for (var i = 0; i < s.length; i++) {
      depth += s[i] === "(" ? 1 : -1;
      if (depth < 0) return false;
    }
    return depth === 0;
  }
  return balanced(lst[0] + lst[1]) || balanced(lst[1] + lst[0]) ? "Yes" : "No";
}

//== HumanEval/120
function maximum(arr, k) {
  if (k === 0) return [];
  return arr.slice().sort(function (a, b) { return a - b; }).slice(arr.length - k);
}

//== HumanEval/121
function solution(lst) {
  var sum = 0;
  for (var i = 0; i < lst.length; i += 2) if (lst[i] % 2 !== 0) sum += lst[i];
  return sum;
}

//== HumanEval/122
function addElements(arr, k) {
  var sum = 0;
  for (var i = 0; i < k; i++) if (String(arr[i]).length <= 2) sum += arr[i];
  return sum;
}

//== HumanEval/123
function getOddCollatz(n) {
  var odds = [];
  while (true) {
    if (n % 2 === 1) odds.push(n);
    if (n === 1) break;
    n = n % 2 === 0 ? n / 2 : 3 * n + 1;
  }
  return odds.sort(function (a, b) { return a - b; });
}

//== HumanEval/124
function validDate(date) {
  var parts = date.trim().split("-");
  if (parts.length !== 3 || !parts.every(function (p) { return /^\d+$/.test(p); })) return false;
  var month = Number(parts[0]), day = Number(parts[1]);
  if (month < 1 || month > 12 || day < 1) return false;
  var days = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}

//== HumanEval/125
function splitWords(txt) {
  if (/\s/.test(txt)) return txt.split(/\s+/).filter(function (w) { return w !== ""; });
  if (txt.indexOf(",") >= 0) return txt.split(",");
  var count = 0;
  for (var i = 0; i < txt.length; i++) {
    var c = txt.charCodeAt(i);
    if (c >= 97 && c <= 122 && (c - 97) % 2 === 1) count++;
  }
  return count;
}

//== HumanEval/126
function isSorted(lst) {
  var counts = {};
  for (var i = 0; i < lst.length; i++) {
    counts[lst[i]] = (counts[lst[i]] || 0) + 1;
    if (counts[lst[i]] > 2) return false;
    if (i > 0 && lst[i - 1] > lst[i]) return false;
  }
  return true;
}

//== HumanEval/127
function intersection(interval1, interval2) {
  var length = Math.min(interval1[1], interval2[1]) - Math.max(interval1[0], interval2[0]);
  if (length < 2) return "NO";
  for (var d = 2; d * d <= length; d++) if (length % d === 0) return "NO";
  return "YES";
}

//== HumanEval/128
function prodSigns(arr) {
  if (arr.length === 0) return null;
  var sign = 1, sum = 0;
  arr.forEach(function (x) {
    if (x === 0) sign = 0;
    else if (x < 0) sign = -sign;
    sum += Math.abs(x);
  });
  return sign === 0 ? 0 : sign * sum;
}

//== HumanEval/129
function minPath(grid, k) {
  var n = grid.length, val = n * n + 1;
  for (var i = 0; i < n; i++) {
    for (var j = 0; j < n; j++) {
      if (grid[i][j] !== 1) continue;
      if (i > 0) val = Math.min(val, grid[i - 1][j]);
      if (j > 0) val = Math.min(val, grid[i][j - 1]);
      if (i < n - 1) val = Math.min(val, grid[i + 1][j]);
      if (j < n - 1) val = Math.min(val, grid[i][j + 1]);
    }
  }
  var out = [];
  for (var s = 0; s < k; s++) out.push(s % 2 === 0 ? 1 : val);
  return out;
}

//== HumanEval/130
function tri(n) {
  if (n === 0) return [1];
  var seq = [1, 3];
  for (var i = 2; i <= n; i++) {
    if (i % 2 === 0) seq.push(i / 2 + 1);
    else seq.push(seq[i - 1] + seq[i - 2] + (i + 3) / 2);
  }
  return seq;
}

//== HumanEval/131
function digits(n) {
  var product = 1, anyOdd = false, s = String(n);
  for (var i = 0; i < s.length; i++) {
    var d = Number(s[i]);
    if (d % 2 === 1) { product *= d; anyOdd = true; }
  }
  return anyOdd ? product : 0;
}

//== HumanEval/132
function isNested(string) {
  var opening = [], closing = [];
  for (var i = 0; i < string.length; i++) {
    if (string[i] === "[") opening.push(i);
    else closing.push(i);
  }
  closing.reverse();
  var count = 0, c = 0;
  for (var o = 0; o < opening.length; o++) {
    if (c < closing.length && opening[o] < closing[c]) { count++; c++; }
  }
  return count >= 2;
}

//== HumanEval/133
function sumSquares(lst) {
  return lst.reduce(function (a, x) { var c = Math.ceil(x); return a + c * c; }, 0);
}

//== HumanEval/134
function checkIfLastCharIsALetter(txt) {
  var words = txt.split(" ");
  var last = words[words.length - 1];
  return last.length === 1 && /[a-zA-Z]/.test(last);
}

//== HumanEval/135
function canArrange(arr) {
  var index = -1;
  for (var i = 1; i < arr.length; i++) if (arr[i] < arr[i - 1]) index = i;
  return index;
}

//== HumanEval/136
function largestSmallestIntegers(lst) {
  var neg = null, pos = null;
  lst.forEach(function (x) {
    if (x < 0 && (neg === null || x > neg)) neg = x;
    if (x > 0 && (pos === null || x < pos)) pos = x;
  });
  return [neg, pos];
}

//== HumanEval/137
function compareOne(a, b) {
  function value(v) { return typeof v === "string" ? parseFloat(v.replace(",", ".")) : v; }
  var x = value(a), y = value(b);
  if (x === y) return null;
  return x > y ? a : b;
}

//== HumanEval/138
function isEqualToSumEven(n) {
  return n % 2 === 0 && n >= 8;
}

//== HumanEval/139
function specialFactorial(n) {
  var fact = 1, result = 1;
  for (var i = 1; i <= n; i++) { fact *= i; result *= fact; }
  return result;
}

//== HumanEval/140
function fixSpaces(text) {
  // As HumanEval's reference: a trailing run of one or two spaces is one "_".
  var out = "", run = 0;
  for (var i = 0; i < text.length; i++) {
    if (text[i] === " ") { run++; continue; }
    if (run > 2) out += "-";
    else for (var k = 0; k < run; k++) out += "_";
    run = 0;
    out += text[i];
  }
  if (run > 2) out += "-";
  else if (run > 0) out += "_";
  return out;
}

//== HumanEval/141
function fileNameCheck(file_name) {
  var parts = file_name.split(".");
  if (parts.length !== 2) return "No";
  if (["txt", "exe", "dll"].indexOf(parts[1]) < 0) return "No";
  if (parts[0].length === 0 || !/^[a-zA-Z]/.test(parts[0])) return "No";
  var digits = parts[0].split("").filter(function (c) { return c >= "0" && c <= "9"; }).length;
  return digits > 3 ? "No" : "Yes";
}

//== HumanEval/142
function sumSquares(lst) {
  var sum = 0;
  for (var i = 0; i < lst.length; i++) {
    if (i % 3 === 0) sum += lst[i] * lst[i];
    else if (i % 4 === 0) sum += lst[i] * lst[i] * lst[i];
    else sum += lst[i];
  }
  return sum;
}

//== HumanEval/143
function wordsInSentence(sentence) {
  function prime(n) {
    if (n < 2) return false;
    for (var d = 2; d * d <= n; d++) if (n % d === 0) return false;
    return true;
  }
  return sentence.split(" ").filter(function (w) { return prime(w.length); }).join(" ");
}

//== HumanEval/144
function simplify(x, n) {
  var a = x.split("/").map(Number), b = n.split("/").map(Number);
  return (a[0] * b[0]) % (a[1] * b[1]) === 0;
}

//== HumanEval/145
function orderByPoints(nums) {
  function points(n) {
    var ds = String(Math.abs(n)).split("").map(Number);
    if (n < 0) ds[0] = -ds[0];
    return ds.reduce(function (a, d) { return a + d; }, 0);
  }
  return nums.map(function (n, i) { return [points(n), i, n]; })
    .sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; })
    .map(function (t) { return t[2]; });
}

//== HumanEval/146
function specialFilter(nums) {
  return nums.filter(function (n) {
    if (n <= 10) return false;
    var s = String(n);
    return Number(s[0]) % 2 === 1 && Number(s[s.length - 1]) % 2 === 1;
  }).length;
}

//== HumanEval/147
function getMaxTriples(n) {
  var a = [];
  for (var i = 1; i <= n; i++) a.push(i * i - i + 1);
  var count = 0;
  for (var x = 0; x < n; x++)
    for (var y = x + 1; y < n; y++)
      for (var z = y + 1; z < n; z++)
        if ((a[x] + a[y] + a[z]) % 3 === 0) count++;
  return count;
}

//== HumanEval/148
function bf(planet1, planet2) {
  var planets = ["Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune"];
  var i = planets.indexOf(planet1), j = planets.indexOf(planet2);
  if (i < 0 || j < 0 || i === j) return [];
  return i < j ? planets.slice(i + 1, j) : planets.slice(j + 1, i);
}

//== HumanEval/149
function sortedListSum(lst) {
  return lst.filter(function (s) { return s.length % 2 === 0; }).sort(function (a, b) {
    if (a.length !== b.length) return a.length - b.length;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

//== HumanEval/150
function xOrY(n, x, y) {
  if (n < 2) return y;
  for (var d = 2; d * d <= n; d++) if (n % d === 0) return y;
  return x;
}

//== HumanEval/151
function doubleTheDifference(lst) {
  return lst.reduce(function (a, x) {
    return Number.isInteger(x) && x > 0 && x % 2 === 1 ? a + x * x : a;
  }, 0);
}

//== HumanEval/152
function compare(game, guess) {
  return game.map(function (g, i) { return Math.abs(g - guess[i]); });
}

//== HumanEval/153
function StrongestExtension(class_name, extensions) {
  function strength(e) {
    var s = 0;
    for (var i = 0; i < e.length; i++) {
      if (e[i] >= "A" && e[i] <= "Z") s++;
      else if (e[i] >= "a" && e[i] <= "z") s--;
    }
    return s;
  }
  var best = extensions[0];
  for (var i = 1; i < extensions.length; i++) if (strength(extensions[i]) > strength(best)) best = extensions[i];
  return class_name + "." + best;
}

//== HumanEval/154
function cycpatternCheck(a, b) {
  for (var i = 0; i < Math.max(b.length, 1); i++) {
    if (a.indexOf(b.slice(i) + b.slice(0, i)) >= 0) return true;
  }
  return false;
}

//== HumanEval/155
function evenOddCount(num) {
  var even = 0, odd = 0, s = String(Math.abs(num));
  for (var i = 0; i < s.length; i++) { if (Number(s[i]) % 2 === 0) even++; else odd++; }
  return [even, odd];
}

//== HumanEval/156
function intToMiniRoman(number) {
  var values = [1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1];
  var symbols = ["m", "cm", "d", "cd", "c", "xc", "l", "xl", "x", "ix", "v", "iv", "i"];
  var out = "";
  for (var i = 0; i < values.length; i++) {
    while (number >= values[i]) { out += symbols[i]; number -= values[i]; }
  }
  return out;
}

//== HumanEval/157
function rightAngleTriangle(a, b, c) {
  return a * a + b * b === c * c || a * a + c * c === b * b || b * b + c * c === a * a;
}

//== HumanEval/158
function findMax(words) {
  function uniq(w) {
    var seen = {}, n = 0;
    for (var i = 0; i < w.length; i++) if (!seen[w[i]]) { seen[w[i]] = true; n++; }
    return n;
  }
  return words.slice().sort(function (a, b) {
    return uniq(b) - uniq(a) || (a < b ? -1 : a > b ? 1 : 0);
  })[0];
}

//== HumanEval/159
function eat(number, need, remaining) {
  if (need <= remaining) return [number + need, remaining - need];
  return [number + remaining, 0];
}

//== HumanEval/160
function doAlgebra(operator, operand) {
  var pos = 0;
  function precedence(op) { return op === "**" ? 3 : op === "*" || op === "//" ? 2 : 1; }
  function apply(op, a, b) {
    switch (op) {
      case "+": return a + b;
      case "-": return a - b;
      case "*": return a * b;
      case "//": return Math.floor(a / b);
      case "**": return Math.pow(a, b);
    }
    throw new Error("unknown operator " + op);
  }
  // Precedence climbing: ** binds tightest and to the right, as in Python.
  function parse(min) {
    var left = operand[pos];
    while (pos < operator.length && precedence(operator[pos]) >= min) {
      var op = operator[pos++];
      var right = parse(op === "**" ? precedence(op) : precedence(op) + 1);
      left = apply(op, left, right);
    }
    return left;
  }
  return parse(1);
}

//== HumanEval/161
function solve(s) {
  if (!/[a-zA-Z]/.test(s)) return s.split("").reverse().join("");
  var out = "";
  for (var i = 0; i < s.length; i++) {
    var c = s[i];
    if (c >= "a" && c <= "z") out += c.toUpperCase();
    else if (c >= "A" && c <= "Z") out += c.toLowerCase();
    else out += c;
  }
  return out;
}

//== HumanEval/162
function stringToMd5(text) {
  if (text === "") return null;
  var bytes = [];
  for (var i = 0; i < text.length; i++) {
    var c = text.codePointAt(i);
    if (c > 0xffff) i++;
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  var bits = bytes.length * 8;
  bytes.push(0x80);
  while (bytes.length % 64 !== 56) bytes.push(0);
  for (var b = 0; b < 8; b++) bytes.push(b < 4 ? (bits >>> (8 * b)) & 255 : 0);
  var shifts = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
  var K = [];
  for (var k = 0; k < 64; k++) K.push(Math.floor(Math.abs(Math.sin(k + 1)) * 4294967296) | 0);
  var h = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476];
  for (var off = 0; off < bytes.length; off += 64) {
    var M = [];
    for (var w = 0; w < 16; w++) {
      var p = off + 4 * w;
      M.push(bytes[p] | (bytes[p + 1] << 8) | (bytes[p + 2] << 16) | (bytes[p + 3] << 24));
    }
    var A = h[0], B = h[1], C = h[2], D = h[3];
    for (var r = 0; r < 64; r++) {
      var F, g;
      if (r < 16) { F = (B & C) | (~B & D); g = r; }
      else if (r < 32) { F = (D & B) | (~D & C); g = (5 * r + 1) % 16; }
      else if (r < 48) { F = B ^ C ^ D; g = (3 * r + 5) % 16; }
      else { F = C ^ (B | ~D); g = (7 * r) % 16; }
      F = (F + A + K[r] + M[g]) | 0;
      A = D; D = C; C = B;
      var s = shifts[(r >> 4) * 4 + (r % 4)];
      B = (B + ((F << s) | (F >>> (32 - s)))) | 0;
    }
    h = [(h[0] + A) | 0, (h[1] + B) | 0, (h[2] + C) | 0, (h[3] + D) | 0];
  }
  var hex = "";
  h.forEach(function (word) {
    for (var q = 0; q < 4; q++) {
      var byte = (word >>> (8 * q)) & 255;
      hex += (byte < 16 ? "0" : "") + byte.toString(16);
    }
  });
  return hex;
}

//== HumanEval/163
function generateIntegers(a, b) {
  var out = [];
  for (var i = Math.max(2, Math.min(a, b)); i <= Math.min(8, Math.max(a, b)); i++) if (i % 2 === 0) out.push(i);
  return out;
}
