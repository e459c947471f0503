// Command hello prints its arguments, for testkit's own tests.
package main

import (
	"fmt"
	"os"
)

func main() { fmt.Println("hello", os.Args[1:]) }
