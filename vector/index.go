package vector

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
)

// entry is what the index keeps of a document besides its vector.
type entry struct {
	id       string
	text     string
	metadata map[string]any // normalised
}

// index is the exact in-memory index behind [Memory]: unit
// vectors in contiguous blocks of float32 (or int8 codes with a scale per
// row), rows addressed by position, ids mapped to rows. Blocks never move,
// so growing the index copies nothing. It is not safe for concurrent use;
// its owner locks.
type index struct {
	dims    int
	int8    bool
	vecs    [][]float32 // blocks of blockRows unit vectors, when !int8
	codes   [][]int8    // blocks of blockRows codes, when int8
	scales  []float32   // one per row, when int8
	entries []entry
	pos     map[string]int
	workers int // the most goroutines one search uses
}

// blockRows is the number of rows in a block of vectors: 2^10.
const (
	blockShift = 10
	blockRows  = 1 << blockShift
	blockMask  = blockRows - 1
)

func newIndex(dims int, int8 bool, workers int) *index {
	return &index{dims: dims, int8: int8, pos: map[string]int{}, workers: workers}
}

func (x *index) len() int { return len(x.entries) }

// reserve grows the list of entries for n more rows.
func (x *index) reserve(n int) { x.entries = slices.Grow(x.entries, n) }

// vec returns row r's unit vector in place.
func (x *index) vec(r int) []float32 {
	o := (r & blockMask) * x.dims
	return x.vecs[r>>blockShift][o : o+x.dims : o+x.dims]
}

// code returns row r's int8 code in place.
func (x *index) code(r int) []int8 {
	o := (r & blockMask) * x.dims
	return x.codes[r>>blockShift][o : o+x.dims : o+x.dims]
}

// put inserts or replaces a document whose unit vector is v*inv.
func (x *index) put(e entry, v []float32, inv float32) {
	row, ok := x.pos[e.id]
	if ok {
		x.entries[row] = e
	} else {
		row = len(x.entries)
		x.pos[e.id] = row
		x.entries = append(x.entries, e)
		if row&blockMask == 0 {
			if x.int8 {
				x.codes = append(x.codes, make([]int8, 0, blockRows*x.dims))
			} else {
				x.vecs = append(x.vecs, make([]float32, 0, blockRows*x.dims))
			}
		}
		b := row >> blockShift
		if x.int8 {
			x.codes[b] = x.codes[b][:len(x.codes[b])+x.dims]
			x.scales = append(x.scales, 0)
		} else {
			x.vecs[b] = x.vecs[b][:len(x.vecs[b])+x.dims]
		}
	}
	if x.int8 {
		x.scales[row] = quantize(x.code(row), v, inv)
	} else {
		scaleInto(x.vec(row), v, inv)
	}
}

// remove deletes a document by moving the last row into its place.
func (x *index) remove(id string) {
	row, ok := x.pos[id]
	if !ok {
		return
	}
	delete(x.pos, id)
	last := len(x.entries) - 1
	if row != last {
		x.entries[row] = x.entries[last]
		x.pos[x.entries[row].id] = row
		if x.int8 {
			copy(x.code(row), x.code(last))
			x.scales[row] = x.scales[last]
		} else {
			copy(x.vec(row), x.vec(last))
		}
	}
	x.entries[last] = entry{}
	x.entries = x.entries[:last]
	b := last >> blockShift
	if x.int8 {
		x.scales = x.scales[:last]
		if x.codes[b] = x.codes[b][:len(x.codes[b])-x.dims]; len(x.codes[b]) == 0 {
			x.codes[b] = nil
			x.codes = x.codes[:b]
		}
	} else if x.vecs[b] = x.vecs[b][:len(x.vecs[b])-x.dims]; len(x.vecs[b]) == 0 {
		x.vecs[b] = nil
		x.vecs = x.vecs[:b]
	}
}

// vector returns a copy of a row's unit vector (decoded from int8 codes in
// int8 mode).
func (x *index) vector(row int) []float32 {
	if !x.int8 {
		return slices.Clone(x.vec(row))
	}
	v := make([]float32, x.dims)
	s := x.scales[row]
	for i, c := range x.code(row) {
		v[i] = float32(c) * s
	}
	return v
}

// hit is a scored row.
type hit struct {
	score float32
	row   int32
}

// topK keeps the k best hits in a min-heap, the worst at h[0].
type topK struct {
	k int
	h []hit
}

func (t *topK) full() bool { return len(t.h) == t.k }

// push adds a hit; the caller has checked that it beats h[0] when full.
func (t *topK) push(v hit) {
	if len(t.h) < t.k {
		t.h = append(t.h, v)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if t.h[p].score <= t.h[i].score {
				break
			}
			t.h[p], t.h[i] = t.h[i], t.h[p]
			i = p
		}
		return
	}
	t.h[0] = v
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(t.h) && t.h[l].score < t.h[small].score {
			small = l
		}
		if r := l + 1; r < len(t.h) && t.h[r].score < t.h[small].score {
			small = r
		}
		if small == i {
			return
		}
		t.h[i], t.h[small] = t.h[small], t.h[i]
		i = small
	}
}

// minScanWork is the number of vector elements below which a search runs
// on one goroutine: under it, starting goroutines costs more than it saves.
const minScanWork = 1 << 18

// search returns the k best rows for the unit query q that score at least
// minScore (when useMin) and pass f, best first. The filter is checked only
// for rows that would enter the top k, so it costs little when it is not
// selective, and it always applies before the cut.
func (x *index) search(q []float32, k int, minScore float32, useMin bool, f *Filter) []hit {
	n := len(x.entries)
	if n == 0 {
		return nil
	}
	var qc []int8
	var qs float32
	if x.int8 {
		qc = make([]int8, x.dims)
		qs = quantize(qc, q, 1)
	}
	workers := min(x.workers, max(1, n*x.dims/minScanWork))
	var all []hit
	if workers <= 1 {
		all = x.scan(q, qc, qs, 0, n, k, minScore, useMin, f)
	} else {
		parts := make([][]hit, workers)
		var wg sync.WaitGroup
		chunk := (n + workers - 1) / workers
		for w := range workers {
			lo, hi := w*chunk, min(n, (w+1)*chunk)
			if lo >= hi {
				continue
			}
			wg.Go(func() { parts[w] = x.scan(q, qc, qs, lo, hi, k, minScore, useMin, f) })
		}
		wg.Wait()
		for _, p := range parts {
			all = append(all, p...)
		}
	}
	slices.SortFunc(all, func(a, b hit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(x.entries[a.row].id, x.entries[b.row].id)
	})
	return all[:min(k, len(all))]
}

// scan scores rows [lo, hi) and returns their best k.
func (x *index) scan(q []float32, qc []int8, qs float32, lo, hi, k int, minScore float32, useMin bool, f *Filter) []hit {
	t := topK{k: k, h: make([]hit, 0, min(k, hi-lo))}
	for row := lo; row < hi; row++ {
		var s float32
		if x.int8 {
			s = float32(dotInt8(qc, x.code(row))) * qs * x.scales[row]
		} else {
			s = dot(q, x.vec(row))
		}
		if useMin && s < minScore {
			continue
		}
		if t.full() && s <= t.h[0].score {
			continue
		}
		if f != nil && !f.match(x.entries[row].metadata, true) {
			continue
		}
		t.push(hit{score: s, row: int32(row)})
	}
	return t.h
}

// defaultWorkers is the parallelism of a search when the options leave it
// at zero.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) }
