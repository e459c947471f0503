package jsrt

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/dop251/goja"
	"github.com/stretchr/testify/require"
)

func TestJSNumber(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1.5, "-1.5"},
		{0.7016570306969449, "0.7016570306969449"}, {0.30000000000000004, "0.30000000000000004"},
		{1e21, "1e+21"}, {1e20, "100000000000000000000"}, {123456789012345680000, "123456789012345680000"},
		{1e-7, "1e-7"}, {1e-6, "0.000001"}, {1.5e-7, "1.5e-7"}, {123e-20, "1.23e-18"},
		{1.5e300, "1.5e+300"}, {-1e-7, "-1e-7"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{5e-324, "5e-324"}, {math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
		{9007199254740993, "9007199254740992"}, {100, "100"}, {0.5, "0.5"}, {12.34, "12.34"},
	} {
		require.Equal(t, tc.want, jsNumber(tc.f), "%v", tc.f)
	}
}

// TestJSNumberRoundTrips formats random doubles and reads them back: the
// digits are the shortest that name the same double.
func TestJSNumberRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		s := jsNumber(f)
		g, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err, s)
		require.Equal(t, f == 0, g == 0)
		if f != 0 {
			require.Equal(t, f, g, s)
		}
	}
}

func TestLocaleNumber(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{1234567.891, "1,234,567.891"}, {0.5, "0.5"}, {-1234.5, "-1,234.5"}, {1e21, "1,000,000,000,000,000,000,000"},
		{0.0001, "0"}, {-0.0001, "0"}, {999.9999, "1,000"}, {12, "12"},
	} {
		require.Equal(t, tc.want, localeNumber(tc.f), "%v", tc.f)
	}
}

func TestGroupNamesAndSubstitute(t *testing.T) {
	n, names := groupNames(`(?<y>\d{4})-(\d\d)(?:x)(?<d>[(?<no>)])\((?<=a)(?<!b)`)
	require.Equal(t, 3, n)
	require.Equal(t, map[string]int{"y": 1, "d": 3}, names)
	args := []goja.Value{goja.New().ToValue("2024-05"), goja.New().ToValue("2024"), goja.New().ToValue("05"), goja.New().ToValue(3), goja.New().ToValue("ab 2024-05 cd")}
	// An unknown name is empty, as the spec says.
	require.Equal(t, "05/2024 $ [2024-05] 2024  $3", substitute("$2/$<y> $$ [$&] $1 $<none> $3", args, 2, map[string]int{"y": 1, "m": 2}))
	require.Equal(t, "ab | cd", substitute("$`|$'", args, 2, map[string]int{"y": 1}))
}
