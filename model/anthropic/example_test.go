package anthropic_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/anthropic"
)

func Example() {
	// A stand-in for https://api.anthropic.com, answering as Anthropic does.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := startSSE(w)
		s.messageStart(model.Usage{InputTokens: 12})
		s.textBlock(0, []string{"Hello", ", world."})
		s.messageDelta("end_turn", 4)
		s.messageStop()
	}))
	defer srv.Close()

	m, err := anthropic.New("claude-sonnet-5-5", model.WithAPIKey("sk-ant-example"), model.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := model.Generate(context.Background(), m, model.Request{
		Messages: []model.Message{model.SystemMessage("Be brief."), model.UserMessage("Say hello.")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Message.Text())
	fmt.Println(resp.FinishReason, resp.Usage)

	// Sampling options are rejected before anything is sent.
	_, err = model.Generate(context.Background(), m, model.Request{
		Messages: []model.Message{model.UserMessage("Say hello.")},
		Options:  model.Options{Temperature: model.Ptr(0.2)},
	})
	fmt.Println(errors.Is(err, model.ErrUnsupported))
	// Output:
	// Hello, world.
	// stop in=12 out=4 cached=0
	// true
}
