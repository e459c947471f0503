// Package doccheck holds the tests that keep loom's documentation true to
// its code: every Go doc link in the module's packages (a name in square
// brackets, plain or qualified by its package or type) resolves to a
// declared name, and so does every pkg.Name the READMEs and the packages'
// overviews mention; the Go blocks of the READMEs type-check against the
// packages they use, and their whole programs build and run; the loom/v1
// blocks of the READMEs and the spec doc pass spec.Validate; each example
// program's --help and its README name the same flags; and the README's
// package table and import claims match the module.
package doccheck
