package observe

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The standard variables of the batch span processor, read by [Setup] for
// the fields of [Config.Batch] left zero.
const (
	BatchSizeEnv     = "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"
	MaxQueueEnv      = "OTEL_BSP_MAX_QUEUE_SIZE"
	BatchIntervalEnv = "OTEL_BSP_SCHEDULE_DELAY"
	ExportTimeoutEnv = "OTEL_BSP_EXPORT_TIMEOUT"
)

// batchFromEnv fills the zero fields of c from the OTEL_BSP_* variables.
func batchFromEnv(c BatchConfig) (BatchConfig, error) {
	for _, f := range []struct {
		env, unit string
		n         *int
		d         *time.Duration
	}{
		{env: BatchSizeEnv, unit: "spans", n: &c.BatchSize},
		{env: MaxQueueEnv, unit: "spans", n: &c.MaxQueue},
		{env: BatchIntervalEnv, unit: "milliseconds", d: &c.Interval},
		{env: ExportTimeoutEnv, unit: "milliseconds", d: &c.ExportTimeout},
	} {
		v := strings.TrimSpace(os.Getenv(f.env))
		if v == "" || (f.n != nil && *f.n != 0) || (f.d != nil && *f.d != 0) {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return c, fmt.Errorf("%w: %s is %q; set a whole number of %s, or unset it for the default",
				ErrInvalidBatchConfig, f.env, v, f.unit)
		}
		if f.n != nil {
			*f.n = n
		} else {
			*f.d = time.Duration(n) * time.Millisecond
		}
	}
	return c, nil
}
