package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/loomwork/loom/sandbox"
)

func ExampleNewInProcess() {
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{Limits: sandbox.Limits{Timeout: time.Second}})
	if err != nil {
		panic(err)
	}
	defer exec.Close()
	res, err := exec.Run(context.Background(), `
console.log("summing");
const n = await Promise.resolve(10);
({ sum: [...Array(n).keys()].reduce((a, b) => a + b), big: 2n ** 70n })`)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res.Value))
	fmt.Println(res.Logs[0].Level, res.Logs[0].Text)
	// Output:
	// {"sum":45,"big":{"$bigint":"1180591620717411303424"}}
	// log summing
}

// The isolated executor re-executes this binary as its worker: main (here,
// TestMain) must call sandbox.ServeWorkerIfChild first.
func ExampleNewIsolated() {
	exec, err := sandbox.NewIsolated(sandbox.IsolatedConfig{Concurrency: 1, Limits: sandbox.Limits{Timeout: 200 * time.Millisecond}})
	if err != nil {
		panic(err)
	}
	defer exec.Close()
	_, err = exec.Run(context.Background(), `for (;;) {}`)
	fmt.Println(sandbox.ErrorKind(err), errors.Is(err, sandbox.ErrTimeout))
	res, err := exec.Run(context.Background(), `[1, 2, 3].map(x => x * x)`)
	fmt.Println(string(res.Value), err)
	// Output:
	// timeout true
	// [1,4,9] <nil>
}

func ExampleError() {
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		panic(err)
	}
	defer exec.Close()
	_, err = exec.Run(context.Background(), "const user = null;\nuser.name")
	var se *sandbox.Error
	if errors.As(err, &se) {
		fmt.Println(se.Kind, se.Line)
		fmt.Println(se.Message)
	}
	// Output:
	// exception 2
	// Uncaught TypeError: Cannot read property 'name' of undefined
	//     at code.js:2:6
}
