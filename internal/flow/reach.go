package flow

// Reachable returns every name reachable from start through next, start
// included: the walk a graph's compile and its declared form's checks both
// make over edges (from start) and reversed edges (to end).
func Reachable(start string, next map[string][]string) map[string]bool {
	seen := map[string]bool{start: true}
	stack := []string{start}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, m := range next[n] {
			if !seen[m] {
				seen[m] = true
				stack = append(stack, m)
			}
		}
	}
	return seen
}
