package evals

import "fmt"

// PassAtK is the unbiased estimator of pass@k from the HumanEval paper: the
// probability that at least one of k samples drawn without replacement
// from n samples, c of them correct, passes: 1 − C(n−c, k) / C(n, k),
// computed as the numerically stable product 1 − ∏_{i=n−c+1}^{n} (1 − k/i).
// It needs 0 ≤ c ≤ n and 1 ≤ k ≤ n.
func PassAtK(n, c, k int) (float64, error) {
	if n < 1 || k < 1 || k > n || c < 0 || c > n {
		return 0, fmt.Errorf("evals: pass@k needs 1 ≤ k ≤ n and 0 ≤ c ≤ n, got n=%d c=%d k=%d", n, c, k)
	}
	if n-c < k {
		return 1, nil
	}
	prod := 1.0
	for i := n - c + 1; i <= n; i++ {
		prod *= 1 - float64(k)/float64(i)
	}
	return 1 - prod, nil
}
