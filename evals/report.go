package evals

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/loomwork/loom/model"
)

// ReportFormat is the format tag of a JSON report.
const ReportFormat = "loom.eval/v1"

// Report is an evaluation's outcome: the scores, the mission's KPIs and
// every sample. Its JSON form is what `loom eval --json` prints and `loom
// eval diff` compares.
type Report struct {
	Format  string    `json:"format"`
	Dataset string    `json:"dataset"`
	Model   string    `json:"model,omitempty"`
	Solver  string    `json:"solver,omitempty"`
	Started time.Time `json:"started"`
	// Problems is the number of problems run; Samples the samples per
	// problem (n).
	Problems int `json:"problems"`
	Samples  int `json:"samples_per_problem"`
	// Overridden is how many of the problems have hand-written tests or
	// helpers in place of translated ones (HumanEval's overrides).
	Overridden int `json:"overridden,omitempty"`
	// PassAt maps k to pass@k, the mean over problems of PassAtK(n, c, k),
	// for each k ≤ n asked for.
	PassAt map[int]float64 `json:"pass_at"`
	// Failures counts the samples by class (passed included).
	Failures map[Class]int `json:"classes"`
	// Usage and CostUSD total the solver's model calls of the runs that
	// ended (a failed run's tokens are not reported by the engine).
	Usage   model.Usage `json:"usage"`
	CostUSD float64     `json:"cost_usd"`
	// LatencyP50MS and LatencyP95MS are percentiles of the solver's time
	// per sample (the model's response time, tool calls included).
	LatencyP50MS float64 `json:"latency_p50_ms"`
	LatencyP95MS float64 `json:"latency_p95_ms"`
	// DurationMS is the evaluation's wall time; Throughput the samples
	// finished per second of it.
	DurationMS float64 `json:"duration_ms"`
	Throughput float64 `json:"samples_per_second"`
	// ErrorRate is the share of samples that ended in a solver or harness
	// error rather than an answer that was checked.
	ErrorRate float64  `json:"error_rate"`
	Results   []Result `json:"results"`
}

// Result is one problem's samples.
type Result struct {
	ID      string   `json:"id"`
	Passed  int      `json:"passed"`
	Samples []Sample `json:"samples"`
}

// Sample is one answer to a problem and its check.
type Sample struct {
	Class Class `json:"class"`
	// Message is the failure's message (the assertion, the exception, the
	// solver's error), cut to 500 bytes.
	Message string `json:"message,omitempty"`
	// Code is the code extracted from the answer (for tasks: the answer).
	Code      string      `json:"code,omitempty"`
	LatencyMS float64     `json:"latency_ms"`
	Usage     model.Usage `json:"usage"`
	CostUSD   float64     `json:"cost_usd"`
}

// PassRate is the share of a problem's samples that passed.
func (r Result) PassRate() float64 {
	if len(r.Samples) == 0 {
		return 0
	}
	return float64(r.Passed) / float64(len(r.Samples))
}

// summarize fills the totals from the results.
func (r *Report) summarize(ks []int, wall time.Duration) {
	r.Format = ReportFormat
	r.Problems = len(r.Results)
	r.PassAt = map[int]float64{}
	r.Failures = map[Class]int{}
	var lat []float64
	total, errs := 0, 0
	for _, res := range r.Results {
		for _, s := range res.Samples {
			total++
			r.Failures[s.Class]++
			if s.Class == SolverError || s.Class == HarnessError {
				errs++
			}
			r.Usage = r.Usage.Add(s.Usage)
			r.CostUSD += s.CostUSD
			lat = append(lat, s.LatencyMS)
		}
	}
	for _, k := range ks {
		if k > r.Samples || len(r.Results) == 0 {
			continue
		}
		sum := 0.0
		for _, res := range r.Results {
			p, err := PassAtK(len(res.Samples), res.Passed, k)
			if err == nil {
				sum += p
			}
		}
		r.PassAt[k] = sum / float64(len(r.Results))
	}
	r.LatencyP50MS, r.LatencyP95MS = percentile(lat, 50), percentile(lat, 95)
	r.DurationMS = ms(wall)
	if wall > 0 {
		r.Throughput = float64(total) / wall.Seconds()
	}
	if total > 0 {
		r.ErrorRate = float64(errs) / float64(total)
	}
}

// percentile is the nearest-rank percentile of xs (0 when empty).
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// WriteTable writes the report for a terminal: the problems that did not
// all pass, then the scores and KPIs.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	failed := 0
	for _, res := range r.Results {
		if res.Passed == len(res.Samples) {
			continue
		}
		if failed == 0 {
			fmt.Fprintf(&b, "%-22s %7s  %s\n", "PROBLEM", "PASSED", "FAILURES")
		}
		failed++
		counts := map[Class]int{}
		msg := ""
		for _, s := range res.Samples {
			if s.Class != Passed {
				counts[s.Class]++
				if msg == "" {
					msg = s.Message
				}
			}
		}
		fmt.Fprintf(&b, "%-22s %3d/%-3d  %s  %s\n", res.ID, res.Passed, len(res.Samples), classCounts(counts), oneLine(msg, 70))
	}
	if failed > 0 {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%s: %d problems × %d samples", r.Dataset, r.Problems, r.Samples)
	if r.Model != "" {
		fmt.Fprintf(&b, ", model %s", r.Model)
	}
	if r.Solver != "" {
		fmt.Fprintf(&b, ", solver %s", r.Solver)
	}
	b.WriteByte('\n')
	if r.Overridden > 0 {
		fmt.Fprintf(&b, "  (%d of the problems have hand-written tests or helpers: evals.Overrides)\n", r.Overridden)
	}
	ks := make([]int, 0, len(r.PassAt))
	for k := range r.PassAt {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	for _, k := range ks {
		fmt.Fprintf(&b, "  pass@%-4d %6.1f%%\n", k, 100*r.PassAt[k])
	}
	fmt.Fprintf(&b, "  outcomes   %s\n", classCounts(r.Failures))
	fmt.Fprintf(&b, "  tokens     %d in, %d out; cost $%.4f\n", r.Usage.InputTokens, r.Usage.OutputTokens, r.CostUSD)
	fmt.Fprintf(&b, "  latency    p50 %s, p95 %s\n", fmtMS(r.LatencyP50MS), fmtMS(r.LatencyP95MS))
	fmt.Fprintf(&b, "  throughput %.2f samples/s over %s; error rate %.1f%%\n", r.Throughput, fmtMS(r.DurationMS), 100*r.ErrorRate)
	_, err := io.WriteString(w, b.String())
	return err
}

func classCounts(m map[Class]int) string {
	var parts []string
	for _, c := range Classes() {
		if m[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, m[c]))
		}
	}
	return strings.Join(parts, ", ")
}

func fmtMS(v float64) string {
	return (time.Duration(v * float64(time.Millisecond))).Round(time.Millisecond).String()
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// ReadReport reads a JSON report written by WriteJSON (or `loom eval
// --out`); a file of another format is an error saying so.
func ReadReport(path string) (*Report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("evals: reading the report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("evals: %s is not a loom eval report: %w", path, err)
	}
	if r.Format != ReportFormat {
		return nil, fmt.Errorf("evals: %s is not a loom eval report (format %q, want %q): write one with loom eval --out", path, r.Format, ReportFormat)
	}
	return &r, nil
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
