package gemini_test

import (
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/providertest"
	"github.com/loomwork/loom/model/modeltest"
	"go.uber.org/goleak"
	"testing"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	modeltest.Run(t, func(t *testing.T, s modeltest.Scenario) modeltest.Server {
		f := newFake(t, scenario(s))
		opts := providertest.ScenarioOptions(s.IdleTimeout, s.MaxRetryWait, model.WithIdleTimeout, model.WithMaxRetryWait)
		return modeltest.Server{Model: f.model(t, opts...), Requests: f.Requests}
	})
}
