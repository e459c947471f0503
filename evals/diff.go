package evals

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Change is how one problem's pass rate moved from one report to another.
type Change struct {
	ID string `json:"id"`
	// Before and After are the pass rates; -1 when the problem is missing
	// from that report.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Status is "fixed", "regressed", "better", "worse", "same", "added"
	// or "removed".
	Status string `json:"status"`
	// BeforeClass and AfterClass are the first failing sample's class.
	BeforeClass Class `json:"before_class,omitempty"`
	AfterClass  Class `json:"after_class,omitempty"`
}

// Diff compares two reports problem by problem, in the order of a, then
// the problems only b has.
func Diff(a, b *Report) []Change {
	index := func(r *Report) map[string]Result {
		m := make(map[string]Result, len(r.Results))
		for _, res := range r.Results {
			m[res.ID] = res
		}
		return m
	}
	ma, mb := index(a), index(b)
	var out []Change
	for _, ra := range a.Results {
		rb, ok := mb[ra.ID]
		c := Change{ID: ra.ID, Before: ra.PassRate(), After: -1, BeforeClass: firstFailure(ra), Status: "removed"}
		if ok {
			c.After, c.AfterClass = rb.PassRate(), firstFailure(rb)
			c.Status = status(c.Before, c.After)
		}
		out = append(out, c)
	}
	var added []Change
	for _, rb := range b.Results {
		if _, ok := ma[rb.ID]; !ok {
			added = append(added, Change{ID: rb.ID, Before: -1, After: rb.PassRate(), AfterClass: firstFailure(rb), Status: "added"})
		}
	}
	sort.SliceStable(added, func(i, j int) bool { return added[i].ID < added[j].ID })
	return append(out, added...)
}

func status(before, after float64) string {
	switch {
	case before == after:
		return "same"
	case after == 1:
		return "fixed"
	case after == 0:
		return "regressed"
	case after > before:
		return "better"
	}
	return "worse"
}

func firstFailure(r Result) Class {
	for _, s := range r.Samples {
		if s.Class != Passed {
			return s.Class
		}
	}
	return ""
}

// Regressed reports whether any problem passes less often in the second
// report ("regressed" or "worse").
func Regressed(changes []Change) bool {
	for _, c := range changes {
		if c.Status == "regressed" || c.Status == "worse" {
			return true
		}
	}
	return false
}

// WriteDiff writes the problems whose status changed and the movement of
// pass@k between the two reports.
func WriteDiff(w io.Writer, a, b *Report, changes []Change) error {
	var s strings.Builder
	counts := map[string]int{}
	for _, c := range changes {
		counts[c.Status]++
		if c.Status == "same" {
			continue
		}
		fmt.Fprintf(&s, "%-10s %-22s %s → %s\n", c.Status, c.ID, rate(c.Before, c.BeforeClass), rate(c.After, c.AfterClass))
	}
	if s.Len() > 0 {
		s.WriteByte('\n')
	}
	ks := map[int]bool{}
	for k := range a.PassAt {
		ks[k] = true
	}
	for k := range b.PassAt {
		ks[k] = true
	}
	var sorted []int
	for k := range ks {
		sorted = append(sorted, k)
	}
	sort.Ints(sorted)
	for _, k := range sorted {
		pa, oka := a.PassAt[k]
		pb, okb := b.PassAt[k]
		if oka && okb {
			fmt.Fprintf(&s, "pass@%d %.1f%% → %.1f%% (%+.1f points)\n", k, 100*pa, 100*pb, 100*(pb-pa))
		}
	}
	var parts []string
	for _, st := range []string{"fixed", "better", "same", "worse", "regressed", "added", "removed"} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	fmt.Fprintf(&s, "%d problems: %s\n", len(changes), strings.Join(parts, ", "))
	_, err := io.WriteString(w, s.String())
	return err
}

func rate(r float64, c Class) string {
	if r < 0 {
		return "absent"
	}
	s := fmt.Sprintf("%.0f%%", 100*r)
	if c != "" {
		s += " (" + string(c) + ")"
	}
	return s
}
