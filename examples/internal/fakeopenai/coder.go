package fakeopenai

import (
	"encoding/json"
	"fmt"
	"strings"
)

// FactorialCode is the snippet [Coder] writes for a question about 15!.
const FactorialCode = "let f = 1;\nfor (let i = 2; i <= 15; i++) f *= i;\nf"

// Coder plays the model of the code-execution examples: for a question
// mentioning "15!" it calls evaluateJs with FactorialCode, for one saying
// "forever" with an endless loop, for one saying "essay" with text cut at
// the token limit (finish_reason "length"); given the tool's result it answers
// "15! = <value>", given an error "The code could not finish: <error>";
// any other question gets "You asked me N questions before this one."
func Coder(req Request) Reply {
	last := req.Last()
	if last.Role == "tool" {
		var res struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal([]byte(last.Content), &res)
		if len(res.Error) > 0 {
			// A failed call arrives as {"error": …}, the message possibly
			// one level deeper.
			var inner struct {
				Error string `json:"error"`
			}
			msg := jsonText(res.Error)
			if json.Unmarshal(res.Error, &inner) == nil && inner.Error != "" {
				msg = inner.Error
			}
			return Reply{Text: "The code could not finish: " + strings.SplitN(msg, "\n", 2)[0]}
		}
		return Reply{Text: "15! = " + jsonText(res.Result)}
	}
	var code string
	switch q := last.Content; {
	case strings.Contains(q, "15!"):
		code = FactorialCode
	case strings.Contains(q, "forever"):
		code = "while (true) {}"
	case strings.Contains(q, "essay"):
		return Reply{Text: "Once upon a time, in a land far", Finish: "length"}
	default:
		users := 0
		for _, m := range req.Messages {
			if m.Role == "user" {
				users++
			}
		}
		return Reply{Text: fmt.Sprintf("You asked me %d questions before this one.", users-1)}
	}
	args, _ := json.Marshal(map[string]string{"code": code})
	return Reply{ToolCalls: []ToolCall{{ID: fmt.Sprintf("call_%d", len(req.Messages)), Name: "evaluateJs", Arguments: string(args)}}}
}

func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
