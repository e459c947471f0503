package worker

// archSyscalls are none beyond the common ones on arm64.
var archSyscalls []uintptr
