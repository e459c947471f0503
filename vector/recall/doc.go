// Package recall is conversation memory for loom's engine that recalls
// earlier turns by similarity: the latest turns verbatim, and the earlier
// turns whose text best matches the coming input, within a token budget.
// It stores the turns' text in any [vector.Store] and the turns themselves
// in a checkpoint.SessionStore.
//
// It lives apart from package vector so that the store contract does not
// import the engine.
package recall
