package evals

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/sandbox"
)

func TestTranslateAssert(t *testing.T) {
	tests := []struct {
		name, python, js string
	}{
		{"ints and lists", `candidate([1, -2, 3]) == [3, 2, 1]`,
			`assert.deepStrictEqual(candidate([1, -2, 3]), [3, 2, 1], "assert candidate([1, -2, 3]) == [3, 2, 1]");`},
		{"floats, exponents, separators", `candidate(1.5e-3, 1_000, 0x1F) == .5`,
			`assert.deepStrictEqual(candidate(1.5e-3, 1000, 31), .5, "assert candidate(1.5e-3, 1_000, 0x1F) == .5");`},
		{"string escapes", `candidate('a\'b\n', "t\tq\"", r'\d', '\x41\u00e9') == ''`,
			`assert.deepStrictEqual(candidate("a'b\n", "t\tq\"", "\\d", "Aé"), "", "assert candidate('a\\'b\\n', \"t\\tq\\\"\", r'\\d', '\\x41\\u00e9') == ''");`},
		{"constants", `candidate(True, False) == [None]`,
			`assert.deepStrictEqual(candidate(true, false), [null], "assert candidate(True, False) == [None]");`},
		{"== None takes undefined too", `candidate(1) == None`, `assert.ok(__py.truthy((candidate(1) == null)), "assert candidate(1) == None");`},
		{"!= None", `candidate(1) != None`, `assert.ok(__py.truthy((candidate(1) != null)), "assert candidate(1) != None");`},
		{"tuples and nested dicts", `candidate((1, 2)) == {'a': (3,), 4: [{'b': None}]}`,
			`assert.deepStrictEqual(candidate([1, 2]), {"a": [3], "4": [{"b": null}]}, "assert candidate((1, 2)) == {'a': (3,), 4: [{'b': None}]}");`},
		{"is True", `candidate(1) is True`, `assert.strictEqual(candidate(1), true, "assert candidate(1) is True");`},
		{"is None", `candidate(1) is None`, `assert.ok(__py.truthy((candidate(1) == null)), "assert candidate(1) is None");`},
		{"not", `not candidate(0)`, `assert.ok(__py.truthy(!__py.truthy(candidate(0))), "assert not candidate(0)");`},
		{"float tolerance", `abs(candidate(1.33) - 0.33) < 1e-6`,
			`assert.ok(__py.truthy((Math.abs((candidate(1.33) - 0.33)) < 1e-6)), "assert abs(candidate(1.33) - 0.33) < 1e-6");`},
		{"math.isclose", `math.isclose(candidate(2), 1.41, rel_tol=0.01)`,
			`assert.ok(__py.truthy(__py.isclose(candidate(2), 1.41, 0.01, 0)), "assert math.isclose(candidate(2), 1.41, rel_tol=0.01)");`},
		{"string message", `candidate(1) == 2, "first"`, `assert.deepStrictEqual(candidate(1), 2, "first");`},
		{"lazy message", `candidate(1) == 2, "got " + str(candidate(1))`,
			`assert.deepStrictEqual(candidate(1), 2, function () { return __py.add("got ", __py.str(candidate(1))); });`},
		{"parenthesised with message", `(candidate(1) == 2), "m"`, `assert.deepStrictEqual(candidate(1), 2, "m");`},
		{"builtins", `sorted(candidate([2, 1])) == list(range(1, 3))`,
			`assert.deepStrictEqual(__py.sorted(candidate([2, 1])), __py.list(__py.range(1, 3)), "assert sorted(candidate([2, 1])) == list(range(1, 3))");`},
		{"in, slices, negative index", `candidate('ab')[-1] in 'xyz'[::2]`,
			`assert.ok(__py.truthy(__py.contains(__py.slice("xyz", null, null, 2), __py.at(candidate("ab"), -1))), "assert candidate('ab')[-1] in 'xyz'[::2]");`},
		{"assert True is dropped", `True, "debugging marker"`, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			js, err := translateStatement("assert " + tc.python)
			require.NoError(t, err)
			require.Equal(t, tc.js, js)
		})
	}
}

func TestTranslateRejects(t *testing.T) {
	tests := []struct{ name, test, line, reason string }{
		{"loop", "def check(candidate):\n    for i in range(3):\n        assert candidate(i) == i\n", "for i in range(3):", "only assert"},
		{"comprehension", "def check(candidate):\n    assert candidate([x for x in y]) == 1\n", "assert candidate([x for x in y]) == 1", "comprehensions"},
		{"big integer", "def check(candidate):\n    assert candidate(1) == 99999999999999999\n", "assert candidate(1) == 99999999999999999", "exact range"},
		{"top-level helper", "def helper():\n    pass\ndef check(candidate):\n    assert candidate(1)\n", "def helper():", "top level"},
		{"f-string", "def check(candidate):\n    assert candidate(1) == f'{x}'\n", "assert candidate(1) == f'{x}'", "f-strings"},
		{"lambda", "def check(candidate):\n    assert candidate(lambda x: x) == 1\n", "assert candidate(lambda x: x) == 1", "lambda"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Translate(HumanEvalTask{TaskID: "X/1", Prompt: "def f(a):\n    \"\"\"doc\"\"\"\n", Test: tc.test, EntryPoint: "f"})
			require.ErrorIs(t, err, ErrUntranslatable)
			var te *TranslateError
			require.ErrorAs(t, err, &te)
			require.Equal(t, "X/1", te.TaskID)
			require.Equal(t, tc.line, te.Line)
			require.Contains(t, err.Error(), tc.reason)
			require.Contains(t, err.Error(), "override")
		})
	}
}

func TestJSName(t *testing.T) {
	for py, js := range map[string]string{
		"has_close_elements": "hasCloseElements", "add": "add", "minSubArraySum": "minSubArraySum",
		"_private_fn": "_privateFn", "f2_x": "f2X", "a__b": "aB",
	} {
		require.Equal(t, js, JSName(py), py)
	}
}

func TestSignatureStub(t *testing.T) {
	prompt := "from typing import List, Tuple\n\n\ndef rolling_max(numbers: List[int], k: int = 3, *rest) -> Tuple[int, int]:\n    \"\"\" From a list of integers, generate\n    a list of rolling maxima.\n    >>> rolling_max([1, 2])\n    [1, 2]\n    \"\"\"\n"
	sig, err := parseSignature(prompt, "rolling_max")
	require.NoError(t, err)
	require.Equal(t, []string{"numbers", "k", "rest"}, sig.Params)
	require.Equal(t, "/**\n * From a list of integers, generate\n * a list of rolling maxima.\n * >>> rolling_max([1, 2])\n * [1, 2]\n */\nfunction rollingMax(numbers, k, rest) {\n", jsStub(sig))
	_, err = parseSignature(prompt, "other")
	require.ErrorContains(t, err, `no "def other("`)
}

func TestReadHumanEval(t *testing.T) {
	line := `{"task_id":"T/0","prompt":"def f(x):\n    \"\"\"d\"\"\"\n","canonical_solution":"    return x\n","test":"def check(candidate):\n    assert candidate(1) == 1\n","entry_point":"f"}` + "\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(line + line))
	require.NoError(t, zw.Close())
	for name, data := range map[string][]byte{"plain": []byte(line + "\n" + line), "gzip": gz.Bytes()} {
		t.Run(name, func(t *testing.T) {
			tasks, err := ReadHumanEval(bytes.NewReader(data))
			require.NoError(t, err)
			require.Len(t, tasks, 2)
			require.Equal(t, "f", tasks[1].EntryPoint)
		})
	}
	_, err := ReadHumanEval(strings.NewReader(line + "{not json\n"))
	require.ErrorContains(t, err, "line 2 is not a HumanEval task")
	_, err = ReadHumanEval(strings.NewReader(`{"task_id":"T/0","prompt":"p"}`))
	require.ErrorContains(t, err, "lacks test, entry_point")
}

func TestFindHumanEval(t *testing.T) {
	t.Setenv(HumanEvalEnv, "")
	dir := t.TempDir()
	repo := dir + "/repo"
	require.NoError(t, os.MkdirAll(repo+"/sub", 0o755))
	require.NoError(t, os.MkdirAll(dir+"/shared/data", 0o755))
	require.NoError(t, os.WriteFile(repo+"/go.mod", []byte("module x\n"), 0o644))

	_, err := FindHumanEval("", repo+"/sub")
	require.ErrorIs(t, err, ErrNoHumanEval)
	require.ErrorContains(t, err, "--humaneval FILE")

	require.NoError(t, os.WriteFile(dir+"/shared/data/HumanEval.jsonl.gz", nil, 0o644))
	p, err := FindHumanEval("", repo+"/sub")
	require.NoError(t, err)
	require.Equal(t, dir+"/shared/data/HumanEval.jsonl.gz", p)

	t.Setenv(HumanEvalEnv, repo+"/go.mod")
	p, err = FindHumanEval("", repo)
	require.NoError(t, err)
	require.Equal(t, repo+"/go.mod", p)

	_, err = FindHumanEval(dir+"/missing.jsonl", repo)
	require.ErrorIs(t, err, ErrNoHumanEval)
}

// loadHandwritten reads testdata's own HumanEval-format problems and their
// reference JavaScript solutions.
func loadHandwritten(t testing.TB) ([]Problem, map[string]string) {
	t.Helper()
	probs, err := TranslateAll(handwrittenTasks(t))
	require.NoError(t, err)
	raw, err := os.ReadFile("testdata/reference.json")
	require.NoError(t, err)
	var ref map[string]string
	require.NoError(t, json.Unmarshal(raw, &ref))
	return probs, ref
}

// handwrittenTasks reads testdata's HumanEval-format problems.
func handwrittenTasks(t testing.TB) []HumanEvalTask {
	t.Helper()
	f, err := os.Open("testdata/handwritten.jsonl")
	require.NoError(t, err)
	defer f.Close()
	tasks, err := ReadHumanEval(f)
	require.NoError(t, err)
	return tasks
}

// checkTranslated runs every problem's tests in the sandbox against a
// function that returns undefined: each must compile and fail with an
// AssertionError (or a TypeError raised on the wrong answer), never a
// SyntaxError or a ReferenceError (a name the translation left undefined).
func checkTranslated(t *testing.T, ex sandbox.Executor, probs []Problem) {
	t.Helper()
	for _, p := range probs {
		_, err := ex.Run(context.Background(), p.Program("function "+p.EntryPoint+"() { return undefined; }"))
		var se *sandbox.Error
		require.ErrorAs(t, err, &se, p.ID)
		require.Contains(t, []string{"AssertionError", "TypeError"}, se.Name, "%s: %v\n%s", p.ID, err, p.Tests)
	}
}

func TestHandwrittenProblems(t *testing.T) {
	probs, ref := loadHandwritten(t)
	require.Len(t, probs, 25)
	ex, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	defer ex.Close()
	checkTranslated(t, ex, probs)
	for _, p := range probs {
		require.Empty(t, p.Override, p.ID)
		_, err := ex.Run(context.Background(), p.Program(ref[p.ID]))
		require.NoError(t, err, "%s: the reference solution fails:\n%s", p.ID, p.Tests)
	}
}

// TestHumanEval translates the real HumanEval when a copy is present (see
// FindHumanEval); loom does not ship it, so it skips otherwise.
func TestHumanEval(t *testing.T) {
	probs := humanEvalOrSkip(t)
	wd, err := os.Getwd()
	require.NoError(t, err)
	path, err := FindHumanEval("", wd)
	require.NoError(t, err)
	ex, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	defer ex.Close()
	checkTranslated(t, ex, probs)

	overridden := 0
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	tasks, err := ReadHumanEval(f)
	require.NoError(t, err)
	for _, task := range tasks {
		o, ok := overrides[task.TaskID]
		if !ok {
			continue
		}
		overridden++
		require.NotEmpty(t, o.Why)
		if o.Tests != "" { // a replaced test must still be one the translator cannot do
			_, err := translateTest(task.Test)
			require.ErrorIs(t, err, ErrUntranslatable, task.TaskID)
		}
		p := probs[slices.IndexFunc(probs, func(p Problem) bool { return p.ID == task.TaskID })]
		require.Equal(t, o.Why, p.Override)
		for _, d := range o.Drop { // a dropped assert is gone from the tests, and only it
			require.Contains(t, task.Test, d, task.TaskID)
			full, err := translateTest(task.Test)
			require.NoError(t, err, task.TaskID)
			require.Less(t, len(p.Tests), len(full), task.TaskID)
		}
		if o.Note != "" {
			require.Contains(t, p.Prompt, " * "+o.Note+"\n", task.TaskID)
		}
	}
	require.Equal(t, len(Overrides()), overridden, "an override names a task HumanEval does not have")
	t.Logf("HumanEval: %d problems translated, %d with hand-written overrides", len(probs), overridden)
}

func TestOverrideDropAndNote(t *testing.T) {
	test := "def check(candidate):\n    assert candidate(3) == True\n    assert candidate(3.0) == False\n"
	got, err := dropLines(test, []string{"assert candidate(3.0) == False"})
	require.NoError(t, err)
	require.Equal(t, "def check(candidate):\n    assert candidate(3) == True\n", got)
	_, err = dropLines(test, []string{"assert candidate(4) == True"})
	require.ErrorContains(t, err, "drops a line the test does not have")

	require.Equal(t, "Sums.\n    >>> f(1)\n    1\n    Round halves to even.\n", withNote("Sums.\n    >>> f(1)\n    1\n    ", "Round halves to even."))
}
