package vector

import (
	"fmt"
	"strings"
	"unicode"
)

// ChunkUnit is what [Split] measures chunk sizes in.
type ChunkUnit uint8

const (
	// Characters measures chunks in Unicode code points.
	Characters ChunkUnit = iota
	// Tokens measures chunks in approximate tokens: four characters a
	// token, the usual ratio for English text with OpenAI's and Gemini's
	// tokenizers. It needs no tokenizer; code and other scripts run
	// shorter or longer per token.
	Tokens
)

// charsPerToken is the ratio behind [Tokens].
const charsPerToken = 4

// Chunk is a piece of a text cut by [Split].
type Chunk struct {
	Text  string
	Start int // the offset of Text in the original, in bytes
	End   int // the offset just past Text, in bytes
}

// Split cuts text into chunks of at most size units, each overlapping the
// previous by about overlap units so that a sentence cut at a boundary is
// whole in one of them. It breaks at the last paragraph break, else line
// break, else sentence end, else space in the second half of a chunk, and
// cuts mid-word only when a chunk has no space at all. Chunks of only
// white space are dropped. size must be positive and overlap in [0, size).
func Split(text string, size, overlap int, unit ChunkUnit) ([]Chunk, error) {
	if size <= 0 || overlap < 0 || overlap >= size {
		return nil, fmt.Errorf("vector: chunk size %d and overlap %d: the size must be positive and the overlap in [0, size)", size, overlap)
	}
	if unit == Tokens {
		size, overlap = size*charsPerToken, overlap*charsPerToken
	}
	// offs[i] is the byte offset of rune i; offs[n] is len(text).
	offs := make([]int, 0, len(text)+1)
	for i := range text {
		offs = append(offs, i)
	}
	n := len(offs)
	offs = append(offs, len(text))
	var out []Chunk
	for start := 0; start < n; {
		end := min(start+size, n)
		if end < n {
			end = breakAt(text, offs, start+size/2, end)
		}
		if s := text[offs[start]:offs[end]]; strings.TrimSpace(s) != "" {
			out = append(out, Chunk{Text: s, Start: offs[start], End: offs[end]})
		}
		if end == n {
			break
		}
		next := max(end-overlap, start+1)
		// Begin the overlap at a word start, unless that reaches the end.
		for w := next; w < end; w++ {
			if w == 0 || unicode.IsSpace(rune(text[offs[w]-1])) {
				next = w
				break
			}
		}
		start = next
	}
	return out, nil
}

// breakAt returns the rune index just past the best break in runes
// [lo, hi): a blank line, else a newline, else a sentence end, else a
// space; hi when there is none.
func breakAt(text string, offs []int, lo, hi int) int {
	window := text[offs[lo]:offs[hi]]
	for _, sep := range []string{"\n\n", "\n", ". ", "? ", "! ", "; ", " "} {
		if i := strings.LastIndex(window, sep); i >= 0 {
			b := offs[lo] + i + len(sep)
			// Convert the byte offset back to a rune index.
			for r := hi; r >= lo; r-- {
				if offs[r] == b {
					return r
				}
			}
		}
	}
	return hi
}
