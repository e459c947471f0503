package agent_test

import "github.com/loomwork/loom/model"

func modelOptions(temp *float64) model.Options { return model.Options{Temperature: temp} }

func toolChoice(name string) model.ToolChoice { return model.CallTool(name) }
