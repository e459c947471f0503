// Package doccheck holds the tests that keep loom's documentation true to
// its code: every Go doc link in the module's packages (a name in square
// brackets, plain or qualified by its package or type) resolves to a
// declared name, and the Go blocks of the READMEs type-check against the
// packages they use.
package doccheck
