package bench

import (
	"flag"
	"math"
	"math/rand/v2"
	"sync"
)

var large = flag.Bool("large", false, "also run with 100k vectors (needs about 2 GB of memory)")

const (
	dims     = 1536
	k        = 10
	queries  = 256
	clusters = 256
)

// sizes returns the store sizes to run.
func sizes() []int {
	if *large {
		return []int{10_000, 100_000}
	}
	return []int{10_000}
}

// dataset is a corpus of unit vectors and queries drawn around the same
// cluster centres.
type dataset struct {
	docs    [][]float32
	queries [][]float32
}

var (
	dataMu sync.Mutex
	data   = map[int]*dataset{}
)

// getData returns the dataset of n documents, made once per run.
func getData(n int) *dataset {
	dataMu.Lock()
	defer dataMu.Unlock()
	if d, ok := data[n]; ok {
		return d
	}
	data[n] = generate(n, dims)
	return data[n]
}

// generate makes n documents and the queries, of dim dimensions.
func generate(n, dim int) *dataset {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	centres := make([][]float32, clusters)
	for i := range centres {
		centres[i] = randUnit(r, dim, nil, 0)
	}
	d := &dataset{docs: make([][]float32, n), queries: make([][]float32, queries)}
	for i := range d.docs {
		d.docs[i] = randUnit(r, dim, centres[r.IntN(clusters)], 0.08)
	}
	for i := range d.queries {
		d.queries[i] = randUnit(r, dim, centres[r.IntN(clusters)], 0.08)
	}
	return d
}

// randUnit returns a random unit vector of dim dimensions: around centre
// with per-element noise of the given spread, or uniform on the sphere
// when centre is nil.
func randUnit(r *rand.Rand, dim int, centre []float32, spread float64) []float32 {
	v := make([]float32, dim)
	for i := range v {
		x := r.NormFloat64()
		if centre != nil {
			x = float64(centre[i]) + spread*x
		}
		v[i] = float32(x)
	}
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}
