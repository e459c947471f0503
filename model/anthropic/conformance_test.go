package anthropic_test

import (
	"testing"

	"github.com/loomwork/loom/model/modeltest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	modeltest.Run(t, func(t *testing.T, s modeltest.Scenario) modeltest.Server {
		f := newFake(t, scenario(s))
		return modeltest.Server{Model: f.model(t), Requests: f.Requests}
	})
}
