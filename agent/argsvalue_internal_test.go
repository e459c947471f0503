package agent

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	ischema "github.com/loomwork/loom/internal/jsonschema"
)

type argsInner struct {
	N    int               `json:"n"`
	Tags []string          `json:"tags,omitempty"`
	Next *argsInner        `json:"next,omitempty"`
	Meta map[string]uint8  `json:"meta,omitempty"`
	Any  any               `json:"any,omitempty"`
	Set  map[string]bool   `json:"set,omitempty"`
	Opt  *float32          `json:"opt,omitempty"`
	List []map[string]bool `json:"list,omitempty"`
}

type argsOuter struct {
	Code    string     `json:"code"`
	Count   int8       `json:"count,omitempty"`
	Ratio   float64    `json:"ratio,omitempty"`
	OK      bool       `json:"ok,omitempty"`
	Inner   argsInner  `json:"inner,omitzero"`
	Ptr     *argsInner `json:"ptr,omitempty"`
	Untaged string
	Skip    string `json:"-"`
}

type argsNamed string

type argsWithUnmarshaler struct {
	When time.Time `json:"when"`
}

type argsEmbedded struct {
	argsInner
	Code string `json:"code"`
}

type argsStringOpt struct {
	N int `json:"n,string"`
}

type argsBytes struct {
	B []byte `json:"b"`
}

type argsRaw struct {
	R json.RawMessage `json:"r"`
}

// TestValueSetterMatchesUnmarshal: where the setter sets a value from the
// parsed JSON it is the value json.Unmarshal decodes from the text; where
// it cannot promise that it says so, at plan time (types that unmarshal
// themselves, embedded structs, the string option, base64 bytes) or at
// run time (a key that is not a field's exact name, a number that does
// not fit, a type mismatch), and Func decodes the text instead.
func TestValueSetterMatchesUnmarshal(t *testing.T) {
	cases := []struct {
		name   string
		typ    reflect.Type
		in     string
		setter bool // the setter decodes it
	}{
		{"struct", reflect.TypeFor[argsOuter](), `{"code":"1+1","count":-5,"ratio":0.5,"ok":true,"Untaged":"u"}`, true},
		{"nested", reflect.TypeFor[argsOuter](), `{"code":"x","inner":{"n":3,"tags":["a","b"],"next":{"n":4,"tags":[]},"meta":{"k":255},"set":{"a":true}},"ptr":{"n":1}}`, true},
		{"any numbers are float64", reflect.TypeFor[argsInner](), `{"any":{"a":[1,2.5,{"b":-3e2}],"c":null,"d":"s"}}`, true},
		{"any scalar", reflect.TypeFor[argsInner](), `{"any":12345678901234567890}`, true},
		{"nulls", reflect.TypeFor[argsOuter](), `{"code":null,"count":null,"ok":null,"inner":null,"ptr":null}`, true},
		{"null in any and pointer", reflect.TypeFor[argsInner](), `{"any":null,"next":null,"opt":null,"tags":null,"meta":null}`, true},
		{"float32 is decoded from the text", reflect.TypeFor[argsInner](), `{"opt":1.5}`, false},
		{"empty array is an empty slice", reflect.TypeFor[argsInner](), `{"tags":[],"list":[{},{"a":false}]}`, true},
		{"map", reflect.TypeFor[map[string]int](), `{"a":1,"b":-2}`, true},
		{"named key and value", reflect.TypeFor[map[argsNamed]argsNamed](), `{"a":"x"}`, true},
		{"any map", reflect.TypeFor[map[string]any](), `{"a":[1,"x",true,null]}`, true},
		{"overflow int8", reflect.TypeFor[argsOuter](), `{"code":"x","count":300}`, false},
		{"fraction into int", reflect.TypeFor[argsInner](), `{"n":1.5}`, false},
		{"integer beyond 2^53", reflect.TypeFor[argsOuter](), `{"ptr":{"n":9007199254740993}}`, false},
		{"negative into uint", reflect.TypeFor[argsInner](), `{"meta":{"k":-1}}`, false},
		{"overflow float32", reflect.TypeFor[argsInner](), `{"opt":1e39}`, false},
		{"huge float in any", reflect.TypeFor[argsInner](), `{"any":[1e400]}`, false},
		{"type mismatch", reflect.TypeFor[argsOuter](), `{"code":5}`, false},
		{"key in another case", reflect.TypeFor[argsOuter](), `{"CODE":"x"}`, false},
		{"unknown key", reflect.TypeFor[argsOuter](), `{"code":"x","other":1}`, false},
		{"skipped field's name", reflect.TypeFor[argsOuter](), `{"Skip":"x"}`, false},
		{"time", reflect.TypeFor[argsWithUnmarshaler](), `{"when":"2026-01-02T03:04:05Z"}`, false},
		{"embedded", reflect.TypeFor[argsEmbedded](), `{"n":1,"code":"x"}`, false},
		{"string option", reflect.TypeFor[argsStringOpt](), `{"n":"5"}`, false},
		{"bytes", reflect.TypeFor[argsBytes](), `{"b":"aGk="}`, false},
		{"raw message", reflect.TypeFor[argsRaw](), `{"r":{"a":1}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := reflect.New(tc.typ)
			wantErr := json.Unmarshal([]byte(tc.in), want.Interface())

			parsed, err := ischema.Parse([]byte(tc.in))
			if err != nil {
				require.Error(t, wantErr, "Parse refuses what json.Unmarshal decodes")
				require.False(t, tc.setter)
				return
			}
			got := reflect.New(tc.typ)
			set := setterFor(tc.typ)
			ok := set != nil && set(parsed, got.Elem())
			require.Equal(t, tc.setter, ok, "whether the setter decodes it")
			if ok {
				require.NoError(t, wantErr, "json.Unmarshal fails where the setter succeeded")
				require.Equal(t, want.Elem().Interface(), got.Elem().Interface())
			}
		})
	}
}

// TestValueSetterIntegerAsSchemaReadsIt: a number JSON Schema counts an
// integer (1e3, 2.0) sets an integer field, where encoding/json refuses
// the literal; the schema check has already accepted it as an integer.
func TestValueSetterIntegerAsSchemaReadsIt(t *testing.T) {
	for _, in := range []string{`{"n":1e3}`, `{"n":1000.0}`} {
		parsed, err := ischema.Parse([]byte(in))
		require.NoError(t, err)
		var got argsInner
		require.True(t, setterFor(reflect.TypeFor[argsInner]())(parsed, reflect.ValueOf(&got).Elem()), in)
		require.Equal(t, 1000, got.N, in)
	}
}

// TestValueSetterRecursiveType: a type that refers to itself gets one
// setter that follows the references.
func TestValueSetterRecursiveType(t *testing.T) {
	set := setterFor(reflect.TypeFor[argsInner]())
	require.NotNil(t, set)
	parsed, err := ischema.Parse([]byte(`{"n":1,"next":{"n":2,"next":{"n":3}}}`))
	require.NoError(t, err)
	var got argsInner
	require.True(t, set(parsed, reflect.ValueOf(&got).Elem()))
	require.Equal(t, 3, got.Next.Next.N)
	require.Nil(t, setterFor(reflect.TypeFor[struct {
		A argsInner `json:"a"`
		W argsWithUnmarshaler
	}]()), "a part that unmarshals itself makes the whole type decode from the text")
}
