package evals

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// HumanEvalEnv is the environment variable naming a HumanEval file when no
// path is given.
const HumanEvalEnv = "LOOM_HUMANEVAL"

// ErrNoHumanEval is returned when no HumanEval file is found. loom does not
// ship HumanEval: download HumanEval.jsonl.gz (MIT, from
// github.com/openai/human-eval) and pass its path.
var ErrNoHumanEval = errors.New("evals: no HumanEval file")

// HumanEvalTask is one line of HumanEval's JSONL file, in its official
// fields.
type HumanEvalTask struct {
	TaskID            string `json:"task_id"`
	Prompt            string `json:"prompt"`
	CanonicalSolution string `json:"canonical_solution"`
	Test              string `json:"test"`
	EntryPoint        string `json:"entry_point"`
}

// FindHumanEval returns the HumanEval file to read: path when it is not
// empty, else $LOOM_HUMANEVAL, else ../shared/data/HumanEval.jsonl.gz
// beside the repository (found by walking up from dir to the directory
// holding go.mod). The error wraps ErrNoHumanEval and says where it looked.
func FindHumanEval(path, dir string) (string, error) {
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("%w: %v", ErrNoHumanEval, err)
		}
		return path, nil
	}
	if env := os.Getenv(HumanEvalEnv); env != "" {
		if _, err := os.Stat(env); err != nil {
			return "", fmt.Errorf("%w: $%s: %v", ErrNoHumanEval, HumanEvalEnv, err)
		}
		return env, nil
	}
	for d := dir; d != ""; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			p := filepath.Join(d, "..", "shared", "data", "HumanEval.jsonl.gz")
			if _, err := os.Stat(p); err == nil {
				return filepath.Clean(p), nil
			}
			break
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return "", fmt.Errorf("%w: pass --humaneval FILE or set $%s to a copy of HumanEval.jsonl.gz (MIT, github.com/openai/human-eval), or put it at ../shared/data/ beside the repository", ErrNoHumanEval, HumanEvalEnv)
}

// ReadHumanEval reads HumanEval tasks from JSONL, gzip-compressed or
// plain. Every line must carry task_id, prompt, test and entry_point.
func ReadHumanEval(r io.Reader) ([]HumanEvalTask, error) {
	br := bufio.NewReader(r)
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("evals: reading the gzip stream: %w", err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	var tasks []HumanEvalTask
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var t HumanEvalTask
		if err := json.Unmarshal(line, &t); err != nil {
			return nil, fmt.Errorf("evals: line %d is not a HumanEval task: %w", n, err)
		}
		var missing []string
		for _, f := range [...]struct{ name, v string }{{"task_id", t.TaskID}, {"prompt", t.Prompt}, {"test", t.Test}, {"entry_point", t.EntryPoint}} {
			if strings.TrimSpace(f.v) == "" {
				missing = append(missing, f.name)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("evals: line %d lacks %s: each line needs task_id, prompt, test and entry_point", n, strings.Join(missing, ", "))
		}
		tasks = append(tasks, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("evals: reading HumanEval: %w", err)
	}
	return tasks, nil
}

// LoadHumanEval reads the HumanEval file at path and translates every task
// (TranslateAll).
func LoadHumanEval(path string) ([]Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoHumanEval, err)
	}
	defer f.Close()
	tasks, err := ReadHumanEval(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return TranslateAll(tasks)
}

// TranslateAll translates tasks into JavaScript problems, using the
// hand-written override where a task has one; the first task that cannot be
// translated is the error (a *TranslateError).
func TranslateAll(tasks []HumanEvalTask) ([]Problem, error) {
	out := make([]Problem, 0, len(tasks))
	for _, t := range tasks {
		p, err := Translate(t)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Translate turns one HumanEval task into a JavaScript Problem: its Python
// signature becomes a JavaScript stub under the docstring, and its Python
// test becomes assert calls (or its override's, see Overrides).
func Translate(t HumanEvalTask) (Problem, error) {
	sig, err := parseSignature(t.Prompt, t.EntryPoint)
	if err != nil {
		return Problem{}, &TranslateError{TaskID: t.TaskID, Err: err}
	}
	p := Problem{ID: t.TaskID, EntryPoint: JSName(t.EntryPoint), PythonName: t.EntryPoint}
	o, ok := overrides[t.TaskID]
	if ok {
		p.Override, p.Prelude, p.Tests = o.Why, o.Prelude, o.Tests
	}
	if p.Tests == "" {
		test, err := dropLines(t.Test, o.Drop)
		if err != nil {
			return Problem{}, &TranslateError{TaskID: t.TaskID, Err: err}
		}
		p.Tests, err = translateTest(test)
		if err != nil {
			var te *TranslateError
			if errors.As(err, &te) {
				te.TaskID = t.TaskID
				return Problem{}, te
			}
			return Problem{}, &TranslateError{TaskID: t.TaskID, Err: err}
		}
	}
	if o.Note != "" {
		sig.Doc = withNote(sig.Doc, o.Note)
	}
	p.Prompt = jsStub(sig)
	if p.Prelude != "" {
		p.Prompt = strings.TrimSpace(p.Prelude) + "\n\n" + p.Prompt
	}
	return p, nil
}

// dropLines returns test without the lines drop names (compared without
// their indentation). Each must be there: an override that names a line the
// test does not have is stale.
func dropLines(test string, drop []string) (string, error) {
	if len(drop) == 0 {
		return test, nil
	}
	lines := strings.Split(test, "\n")
	for _, d := range drop {
		i := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == d })
		if i < 0 {
			return "", fmt.Errorf("the override drops a line the test does not have: %q", d)
		}
		lines = slices.Delete(lines, i, i+1)
	}
	return strings.Join(lines, "\n"), nil
}

// withNote adds a line to a docstring, indented as its last line is so the
// docstring's lines keep their common indentation.
func withNote(doc, note string) string {
	doc = strings.TrimRight(doc, " \t\n")
	last := doc[strings.LastIndexByte(doc, '\n')+1:]
	indent := last[:len(last)-len(strings.TrimLeft(last, " \t"))]
	return doc + "\n" + indent + note + "\n"
}
