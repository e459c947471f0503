package vector

import (
	"fmt"

	"github.com/loomwork/loom/model"
)

// ConfigDimensions resolves an adapter's configured vector length against
// its embedder, for adapters: zero takes the embedder's, a positive count
// must match it, and a negative one is invalid. Configuration errors wrap
// errConfig, the adapter's own sentinel; a mismatch is a [*DimensionError].
func ConfigDimensions(dims int, emb model.Embedder, errConfig error) (int, error) {
	switch {
	case dims < 0:
		return 0, fmt.Errorf("%w: Dimensions is %d; use 0 to take the Embedder's, or a positive count", errConfig, dims)
	case dims == 0 && emb == nil:
		return 0, fmt.Errorf("%w: Dimensions is 0 and there is no Embedder to take it from", errConfig)
	case dims == 0:
		return emb.Dimensions(), nil
	case emb != nil && emb.Dimensions() != dims:
		return 0, &DimensionError{Want: dims, Got: emb.Dimensions(), What: "embedder " + emb.Name()}
	}
	return dims, nil
}
