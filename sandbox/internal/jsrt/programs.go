package jsrt

import (
	"sync"

	"github.com/dop251/goja"
)

// lazyProgram compiles the sandbox's own JS program on first use, once: a
// *goja.Program is immutable and shared by every runtime. Compiling them
// when the package is initialised would cost every program that links the
// sandbox a few milliseconds of start-up, also the hosts that run code only
// in workers.
func lazyProgram(name, src string, strict bool) func() *goja.Program {
	return sync.OnceValue(func() *goja.Program { return goja.MustCompile(name, src, strict) })
}

// Precompile compiles the sandbox's own JS programs now rather than at the
// first run: a worker calls it while it waits for its first request.
func Precompile() {
	kitProgram()
	polyfillProgram()
	asyncFnProgram()
	genFnProgram()
	arrayWrapProgram()
	sortWrapProgram()
}
