package vector_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/vector"
)

func TestConfigDimensions(t *testing.T) {
	errConfig := errors.New("adapter: invalid config")
	emb, err := vector.NewHashEmbedder(8)
	require.NoError(t, err)
	for _, c := range []struct {
		name    string
		dims    int
		noEmb   bool
		want    int
		wantErr string
		config  bool // the error wraps errConfig
	}{
		{name: "zero takes the embedder's", want: 8},
		{name: "a matching count", dims: 8, want: 8},
		{name: "a count without an embedder", dims: 3, noEmb: true, want: 3},
		{name: "negative", dims: -1, wantErr: "adapter: invalid config: Dimensions is -1; use 0 to take the Embedder's, or a positive count", config: true},
		{name: "zero without an embedder", noEmb: true, wantErr: "adapter: invalid config: Dimensions is 0 and there is no Embedder to take it from", config: true},
		{name: "a mismatch", dims: 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e model.Embedder = emb
			if c.noEmb {
				e = nil
			}
			got, err := vector.ConfigDimensions(c.dims, e, errConfig)
			switch {
			case c.wantErr != "":
				require.EqualError(t, err, c.wantErr)
				require.Equal(t, c.config, errors.Is(err, errConfig))
			case c.want == 0:
				var de *vector.DimensionError
				require.ErrorAs(t, err, &de)
				require.Equal(t, 4, de.Want)
				require.Equal(t, 8, de.Got)
			default:
				require.NoError(t, err)
				require.Equal(t, c.want, got)
			}
		})
	}
}
