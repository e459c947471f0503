package embedding

// EstimateTokens approximates the tokens of s from its length: a token is
// about four bytes of English and about three of other scripts, so bytes/3
// rounded up errs on the high side, which keeps batches under token limits.
func EstimateTokens(s string) int { return (len(s) + 2) / 3 }

// Batches splits texts into consecutive [lo, hi) ranges of at most maxItems
// texts whose estimated tokens add up to at most maxTokens (0: no token
// limit). A single text over maxTokens gets a batch of its own, and the
// provider judges it.
func Batches(texts []string, maxItems, maxTokens int) [][2]int {
	var out [][2]int
	lo, tokens := 0, 0
	for i, t := range texts {
		n := EstimateTokens(t)
		if i > lo && (i-lo == maxItems || (maxTokens > 0 && tokens+n > maxTokens)) {
			out = append(out, [2]int{lo, i})
			lo, tokens = i, 0
		}
		tokens += n
	}
	if lo < len(texts) {
		out = append(out, [2]int{lo, len(texts)})
	}
	return out
}
