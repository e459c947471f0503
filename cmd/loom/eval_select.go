package main

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/loomwork/loom/evals"
)

// evalSet is the problems or tasks selected to run.
type evalSet struct {
	problems []evals.Problem
	tasks    []evals.Task
}

// loadEvalSet loads the data set the options name and keeps the problems
// --problems and --limit select.
func loadEvalSet(o evalOptions) (evalSet, error) {
	var set evalSet
	var ids []string
	switch o.dataset {
	case "humaneval":
		wd, _ := os.Getwd()
		p, err := evals.FindHumanEval(o.humaneval, wd)
		if err != nil {
			return set, &exitError{2, err.Error()}
		}
		if set.problems, err = evals.LoadHumanEval(p); err != nil {
			return set, &exitError{2, err.Error()}
		}
		for _, p := range set.problems {
			ids = append(ids, p.ID)
		}
	case "loom-tasks":
		var err error
		if set.tasks, err = evals.Tasks(); err != nil {
			return set, &exitError{1, err.Error()}
		}
		for _, t := range set.tasks {
			ids = append(ids, t.ID)
		}
	}
	keep, err := selectProblems(ids, o.problems, o.limit)
	if err != nil {
		return set, &exitError{2, "--problems: " + err.Error()}
	}
	set.problems = filter(set.problems, func(p evals.Problem) string { return p.ID }, keep)
	set.tasks = filter(set.tasks, func(t evals.Task) string { return t.ID }, keep)
	if len(set.problems)+len(set.tasks) == 0 {
		return set, &exitError{2, "no problem selected: check --problems and --limit"}
	}
	return set, nil
}

// selectProblems returns the set of ids to run: those the comma-separated
// spec names (exact ids, globs, or /regexps/; all when empty), then the
// first limit of them (all when 0). An exact id that does not exist is an
// error.
func selectProblems(ids []string, spec string, limit int) (map[string]bool, error) {
	var match []func(string) bool
	for _, s := range strings.Split(spec, ",") {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
		case len(s) > 2 && strings.HasPrefix(s, "/") && strings.HasSuffix(s, "/"):
			re, err := regexp.Compile(s[1 : len(s)-1])
			if err != nil {
				return nil, fmt.Errorf("%s is not a regular expression: %v", s, err)
			}
			match = append(match, re.MatchString)
		case strings.ContainsAny(s, "*?["):
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("%s is not a glob pattern: %v", s, err)
			}
			match = append(match, func(id string) bool { ok, _ := path.Match(s, id); return ok })
		default:
			want, found := s, false
			for _, id := range ids {
				found = found || id == s
			}
			for _, id := range ids { // a bare number or name: HumanEval/12 as 12
				if !found && strings.HasSuffix(id, "/"+s) {
					want, found = id, true
				}
			}
			if !found {
				return nil, fmt.Errorf("no problem has the id %q (ids look like %s)", s, ids[0])
			}
			match = append(match, func(id string) bool { return id == want })
		}
	}
	keep := map[string]bool{}
	for _, id := range ids {
		if limit > 0 && len(keep) == limit {
			break
		}
		ok := len(match) == 0
		for _, f := range match {
			ok = ok || f(id)
		}
		if ok {
			keep[id] = true
		}
	}
	return keep, nil
}

func filter[T any](xs []T, id func(T) string, keep map[string]bool) []T {
	var out []T
	for _, x := range xs {
		if keep[id(x)] {
			out = append(out, x)
		}
	}
	return out
}
