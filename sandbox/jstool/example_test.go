package jstool_test

import (
	"context"
	"fmt"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
)

func ExampleNew() {
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	if err != nil {
		panic(err)
	}
	defer exec.Close()
	tool, err := jstool.New(exec, jstool.Config{})
	if err != nil {
		panic(err)
	}
	out, err := agent.Invoke(context.Background(), tool, map[string]string{
		"code": "console.log('10!'); let f = 1; for (let i = 2; i <= 10; i++) f *= i; f",
	})
	fmt.Println(string(out), err)
	// Output: {"result":3628800,"logs":["10!"]} <nil>
}
