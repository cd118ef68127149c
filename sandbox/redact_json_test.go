package sandbox

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// jsonReference is what encoding/json makes of s, in jsonParse's terms;
// a number outside float64 JSON.parse reads as ±Infinity, a scalar, where
// encoding/json fails.
func jsonReference(s string) (string, int, bool) {
	var v any
	err := json.Unmarshal([]byte(s), &v)
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && strings.HasPrefix(typ.Value, "number") {
		return "", iniScalar, true
	}
	if err != nil {
		return "", 0, false
	}
	switch p := v.(type) {
	case string:
		return p, iniString, true
	case map[string]any, []any:
		return "", iniObject, true
	}
	return "", iniScalar, true
}

var jsonSeeds = []string{
	`"a"`, ` "a\"b\\c\/d\b\f\n\r\t" `, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`,
	`"\udc00\ud800"`, `"\u12"`, `"\x"`, "\"a\tb\"", `"a`, `"a" x`, `""`,
	`1`, `-0`, `-0.5e+10`, `01`, `1.`, `.5`, `1e`, `1e400`, `-`, `true`, `tru`, `null `, `nul`,
	`{}`, `[]`, `[1,2,{"a":[true,{"b":null}]}]`, `{"a":1,}`, `[1,]`, `[,1]`, `{"a" 1}`, `{1:2}`,
	`[[[]]]`, `[[]`, `{"a":{"b":[]}}x`, "[\n1\r,\t2 ]", `{"a":"\ud83d"}`, "\"\xff\"", ``, ` `,
	strings.Repeat("[", jsonMaxDepth) + strings.Repeat("]", jsonMaxDepth),
	strings.Repeat("[", jsonMaxDepth+1) + strings.Repeat("]", jsonMaxDepth+1),
}

// TestJSONParse holds jsonParse, which the redaction reads npm's quoted
// values with, to encoding/json on the seeds.
func TestJSONParse(t *testing.T) {
	for _, s := range jsonSeeds {
		checkJSONParse(t, s)
	}
}

func FuzzJSONParse(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add(s)
	}
	f.Fuzz(checkJSONParse)
}

func checkJSONParse(t *testing.T, s string) {
	str, kind, ok := jsonParse(s)
	wstr, wkind, wok := jsonReference(s)
	if str != wstr || kind != wkind || ok != wok {
		short := s
		if len(short) > 80 {
			short = short[:80] + "..."
		}
		t.Errorf("jsonParse(%q) = %q, %d, %v; encoding/json: %q, %d, %v", short, str, kind, ok, wstr, wkind, wok)
	}
}
