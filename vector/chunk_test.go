package vector_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
)

func TestSplit(t *testing.T) {
	text := "First paragraph is here.\n\nSecond one follows. It has two sentences.\n\nThird."
	cs, err := vector.Split(text, 40, 10, vector.Characters)
	require.NoError(t, err)
	require.NotEmpty(t, cs)
	for i, c := range cs {
		require.LessOrEqual(t, utf8.RuneCountInString(c.Text), 40, "chunk %d: %q", i, c.Text)
		require.Equal(t, text[c.Start:c.End], c.Text)
	}
	require.Equal(t, "First paragraph is here.\n\n", cs[0].Text, "breaks at the paragraph")
	// Every part of the text is in some chunk.
	covered := make([]bool, len(text))
	for _, c := range cs {
		for i := c.Start; i < c.End; i++ {
			covered[i] = true
		}
	}
	for i, ok := range covered {
		if !ok {
			require.True(t, strings.TrimSpace(string(text[i])) == "", "byte %d (%q) is in no chunk", i, text[i])
		}
	}
}

func TestSplitOverlap(t *testing.T) {
	words := strings.Repeat("alpha beta gamma delta ", 50)
	cs, err := vector.Split(words, 100, 30, vector.Characters)
	require.NoError(t, err)
	require.Greater(t, len(cs), 5)
	for i := 1; i < len(cs); i++ {
		require.Less(t, cs[i].Start, cs[i-1].End, "chunk %d overlaps the previous one", i)
		require.GreaterOrEqual(t, cs[i-1].End-cs[i].Start, 15, "chunk %d overlaps by about 30 characters", i)
		require.Equal(t, byte(' '), words[cs[i].Start-1], "chunk %d starts at a word", i)
	}
	require.Equal(t, len(words), cs[len(cs)-1].End)
}

func TestSplitUnits(t *testing.T) {
	text := strings.Repeat("x", 1000) // no spaces: hard cuts
	cs, err := vector.Split(text, 100, 0, vector.Characters)
	require.NoError(t, err)
	require.Len(t, cs, 10)
	cs, err = vector.Split(text, 100, 0, vector.Tokens)
	require.NoError(t, err)
	require.Len(t, cs, 3, "100 tokens is about 400 characters")

	cs, err = vector.Split("héllo wörld ünïcode", 6, 2, vector.Characters)
	require.NoError(t, err)
	for _, c := range cs {
		require.True(t, utf8.ValidString(c.Text), "chunks cut at rune boundaries: %q", c.Text)
	}

	cs, err = vector.Split("   \n\n  ", 3, 0, vector.Characters)
	require.NoError(t, err)
	require.Empty(t, cs, "white space only gives no chunks")

	for _, bad := range [][2]int{{0, 0}, {-1, 0}, {10, 10}, {10, -1}} {
		_, err := vector.Split("x", bad[0], bad[1], vector.Characters)
		require.ErrorContains(t, err, "the size must be positive and the overlap in [0, size)")
	}
}
