package vector

import (
	"fmt"
	"math"
)

// DefaultK is the number of matches a [Query] with K zero asks for.
const DefaultK = 4

// Query asks a [Store] for the documents closest to a vector or a text.
type Query struct {
	// Text is embedded with the store's embedder when Vector is nil.
	Text string
	// Vector is the query vector; when set, Text is ignored.
	Vector []float32
	// K is the most matches returned: 0 means [DefaultK]; negative is an
	// error.
	K int
	// MinScore leaves out matches scoring below it. 0 means no minimum
	// (cosine scores can be negative); otherwise it must be within [-1, 1].
	MinScore float32
	// Filter selects documents by metadata before the top-K cut. Nil: no
	// filter.
	Filter *Filter
	// WithVectors asks for each match's stored vector in Match.Vector
	// (an embedded store keeps vectors at unit length, so its vectors
	// come back scaled).
	// False leaves Match.Vector nil, and a store on a server does not
	// ask the server for vectors, which can halve the cost of a query.
	WithVectors bool
}

// Prepare validates q and returns it with K defaulted. It checks K,
// MinScore and the filter; the vector, when set, must be finite and not
// zero. It does not check dimensions or embed the text: stores do that.
// Every error wraps [ErrInvalidQuery].
func (q Query) Prepare() (Query, error) {
	switch {
	case q.K < 0:
		return q, fmt.Errorf("%w: K is %d; use 0 for the default of %d or a positive count", ErrInvalidQuery, q.K, DefaultK)
	case q.K == 0:
		q.K = DefaultK
	}
	if math.IsNaN(float64(q.MinScore)) || q.MinScore < -1 || q.MinScore > 1 {
		return q, fmt.Errorf("%w: MinScore is %v; cosine scores lie in [-1, 1]", ErrInvalidQuery, q.MinScore)
	}
	if q.Vector == nil && q.Text == "" {
		return q, fmt.Errorf("%w: neither Text nor Vector is set", ErrInvalidQuery)
	}
	if q.Vector != nil {
		if err := CheckVector(ErrInvalidQuery, "query vector", q.Vector); err != nil {
			return q, err
		}
	}
	if q.Filter != nil {
		if err := q.Filter.Validate(); err != nil {
			return q, fmt.Errorf("%w: %w", ErrInvalidQuery, err)
		}
	}
	return q, nil
}
