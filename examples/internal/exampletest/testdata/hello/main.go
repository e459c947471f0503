// Command hello prints its arguments, for exampletest's own tests.
package main

import (
	"fmt"
	"os"
)

func main() { fmt.Println("hello", os.Args[1:]) }
