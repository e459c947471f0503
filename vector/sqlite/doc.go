// Package sqlite is loom's embedded persistent vector store: the exact
// index of [vector.Memory] kept in a SQLite file (modernc.org/sqlite, no
// cgo), by default under the user cache directory, and loaded back into
// memory when opened, so it survives restarts.
//
// It lives apart from package vector so that code which only needs the
// store contract (codeexec, agents with a search tool) links no SQLite
// driver.
package sqlite
