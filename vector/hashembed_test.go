package vector_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/vector"
)

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestHashEmbedder(t *testing.T) {
	e, err := vector.NewHashEmbedder(0)
	require.NoError(t, err)
	require.Equal(t, vector.DefaultHashDimensions, e.Dimensions())
	require.Equal(t, "hash:256", e.Name())

	_, err = vector.NewHashEmbedder(-1)
	require.ErrorContains(t, err, "dimensions -1")

	texts := []string{"Parse the JSON file", "parsing json files", "bake bread in the oven", "", "!!!"}
	vs, err := e.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Len(t, vs, len(texts))
	for i, v := range vs[:3] {
		require.Len(t, v, 256)
		require.InDelta(t, 1, dot(v, v), 1e-5, "text %d is unit length", i)
	}
	require.Equal(t, vs[0], e.EmbedOne("Parse the JSON file"), "deterministic")
	require.Equal(t, vs[0], e.EmbedOne("parse, the json FILE."), "case and punctuation do not matter")
	require.Greater(t, dot(vs[0], vs[1]), dot(vs[0], vs[2]), "shared words and word pieces score higher")
	require.Equal(t, make([]float32, 256), vs[3], "the empty text is all zeros")
	require.InDelta(t, 1, dot(vs[4], vs[4]), 1e-5, "punctuation alone is still embedded")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.Embed(ctx, texts)
	require.ErrorIs(t, err, context.Canceled)
}
