package rest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/platform/errs"
)

func issuesOf(t *testing.T, err error) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err == nil {
		return out
	}
	e := errs.As(err)
	d, ok := e.Details.(errs.ValidationDetails)
	if !ok {
		t.Fatalf("not a validation error: %v", err)
	}
	for _, f := range d.Fields {
		out[f.Field] = f.Issue
	}
	return out
}

func TestParseObject(t *testing.T) {
	tests := []struct {
		body string
		code errs.Code
	}{
		{`{"a":1}`, ""},
		{`{bad`, errs.MalformedJSON},
		{``, errs.MalformedJSON},
		{`[]`, errs.Validation},
		{`"str"`, errs.Validation},
		{`null`, errs.Validation},
	}
	for _, tt := range tests {
		_, err := ParseObject([]byte(tt.body))
		if tt.code == "" && err != nil || tt.code != "" && !errs.Is(err, tt.code) {
			t.Errorf("ParseObject(%q) = %v, want %q", tt.body, err, tt.code)
		}
	}
}

// TestNoFields: an action that takes no fields accepts no body or an empty
// object, and refuses what it would otherwise ignore.
func TestNoFields(t *testing.T) {
	tests := []struct {
		body string
		code errs.Code
	}{
		{``, ""},
		{`{}`, ""},
		{" { } \n", ""},
		{`{`, errs.MalformedJSON},
		{"{\"a\":\"\xff\"}", errs.MalformedJSON},
		{`{"a":"\ud800"}`, errs.MalformedJSON},
		{`[]`, errs.Validation},
		{`null`, errs.Validation},
		{`{"at":"now"}`, errs.Validation},
	}
	for _, tt := range tests {
		err := noFields([]byte(tt.body))
		if tt.code == "" && err != nil || tt.code != "" && !errs.Is(err, tt.code) {
			t.Errorf("noFields(%q) = %v, want %q", tt.body, err, tt.code)
		}
	}
}

// TestMalformedSaysWhenTooDeep: a body refused for its depth alone says so;
// other malformed bodies, and brackets inside strings, do not.
func TestMalformedSaysWhenTooDeep(t *testing.T) {
	open := strings.Repeat("[", maxNesting+1)
	tests := []struct {
		name, body string
		tooDeep    bool
	}{
		{"valid but one level too deep", `{"a":` + strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting) + `}`, true},
		{"unclosed and too deep", `{"a":` + open, true},
		{"brackets in a string", `{"a":"` + open + `",}`, false},
		{"brackets after an escaped quote in a string", `{"a":"\"` + open + `",}`, false},
		{"brackets after an escaped backslash", `{"a":"\\",` + open, true},
		{"plain garbage", `{bad`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseObject([]byte(tt.body))
			e := errs.As(err)
			if e == nil || e.Code != errs.MalformedJSON {
				t.Fatalf("ParseObject = %v, want malformed_json", err)
			}
			if got := strings.Contains(e.Message, "10,000 levels"); got != tt.tooDeep {
				t.Errorf("message %q: says too deep = %v, want %v", e.Message, got, tt.tooDeep)
			}
		})
	}
	readable := `{"a":` + strings.Repeat("[", maxNesting-1) + strings.Repeat("]", maxNesting-1) + `}`
	if _, err := ParseObject([]byte(readable)); err != nil {
		t.Errorf("a body %d levels deep: %v, want it read", maxNesting, err)
	}
}

func TestInputFieldRules(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		read  func(in *Input)
		issue map[string]string // field → substring of the issue; empty: valid
	}{
		{"required missing", `{}`, func(in *Input) { in.String("name", Rule{Required: true}) },
			map[string]string{"name": "is required"}},
		{"required blank", `{"name":"   "}`, func(in *Input) { in.String("name", Rule{Required: true}) },
			map[string]string{"name": "must not be empty"}},
		{"too long", `{"name":"` + strings.Repeat("x", 256) + `"}`, func(in *Input) { in.String("name", Rule{}) },
			map[string]string{"name": "at most 255"}},
		{"wrong type", `{"name":5}`, func(in *Input) { in.String("name", Rule{}) }, map[string]string{"name": "must be a string"}},
		{"null not allowed", `{"name":null}`, func(in *Input) { in.String("name", Rule{}) }, map[string]string{"name": "must not be null"}},
		{"null allowed", `{"notes":null}`, func(in *Input) { in.String("notes", Rule{Nullable: true}) }, nil},
		{"email", `{"email":"a@b"}`, func(in *Input) { in.String("email", Rule{Email: true}) }, map[string]string{"email": "valid email"}},
		{"email with name", `{"email":"A <a@b.co>"}`, func(in *Input) { in.String("email", Rule{Email: true}) }, map[string]string{"email": "valid email"}},
		{"enum", `{"s":"x"}`, func(in *Input) { in.String("s", Rule{OneOf: []string{"a", "b"}}) }, map[string]string{"s": "one of: a, b"}},
		{"nul byte", `{"s":"a\u0000b"}`, func(in *Input) { in.String("s", Rule{}) }, map[string]string{"s": "NUL"}},
		{"int quoted", `{"n":"5"}`, func(in *Input) { in.Int("n", Rule{}) }, map[string]string{"n": "integer"}},
		{"int fraction", `{"n":1.5}`, func(in *Input) { in.Int("n", Rule{}) }, map[string]string{"n": "integer"}},
		{"int fraction past float64", `{"n":5.0000000000000001}`, func(in *Input) { in.Int("n", Rule{}) }, map[string]string{"n": "integer"}},
		{"int written 5.0", `{"n":5.0}`, func(in *Input) {
			if v := in.Int("n", Rule{}); v.Value != 5 {
				in.Issue("n", fmt.Sprintf("read as %d", v.Value))
			}
		}, nil},
		{"int written 50e-1", `{"n":50e-1}`, func(in *Input) {
			if v := in.Int("n", Rule{}); v.Value != 5 {
				in.Issue("n", fmt.Sprintf("read as %d", v.Value))
			}
		}, nil},
		{"int 1e400", `{"n":1e400}`, func(in *Input) { in.Int("n", Rule{}) }, map[string]string{"n": "must be an integer from -2147483648 to 2147483647"}},
		{"int 3e9 with a maximum", `{"n":3e9}`, func(in *Input) { in.Int("n", Rule{Min: Bound(1), Max: Bound(1_000_000)}) },
			map[string]string{"n": "must be an integer from 1 to 1000000"}},
		{"int past int32 with a minimum", `{"n":2147483648}`, func(in *Input) { in.Int("n", Rule{Min: Bound(0)}) },
			map[string]string{"n": "must be an integer from 0 to 2147483647"}},
		{"number 1e400", `{"w":1e400}`, func(in *Input) { in.Number("w", Rule{Positive: true}) },
			map[string]string{"w": "positive number of at most 1000000000"}},
		{"number -1e400", `{"w":-1e400}`, func(in *Input) { in.Number("w", Rule{Positive: true}) },
			map[string]string{"w": "positive number of at most 1000000000"}},
		{"int bool", `{"n":true}`, func(in *Input) { in.Int("n", Rule{}) }, map[string]string{"n": "integer"}},
		{"int past int32", `{"n":2147483648}`, func(in *Input) { in.Int("n", Rule{}) }, map[string]string{"n": "must be an integer from -2147483648 to 2147483647"}},
		{"int bound", `{"n":0}`, func(in *Input) { in.Int("n", Rule{Min: Bound(1)}) }, map[string]string{"n": "at least 1"}},
		{"positive number", `{"w":-1}`, func(in *Input) { in.Number("w", Rule{Positive: true}) }, map[string]string{"w": "positive"}},
		{"positive number over the maximum", `{"w":1000000001}`, func(in *Input) { in.Number("w", Rule{Positive: true}) },
			map[string]string{"w": "positive number of at most 1000000000"}},
		{"positive number at the maximum", `{"w":1000000000}`, func(in *Input) { in.Number("w", Rule{Positive: true}) }, nil},
		{"positive number rounding onto the maximum", `{"w":1000000000.0000000001}`, func(in *Input) { in.Number("w", Rule{Positive: true}) },
			map[string]string{"w": "positive number of at most 1000000000"}},
		{"positive number rounding onto the maximum from below", `{"w":999999999.99999999999}`, func(in *Input) { in.Number("w", Rule{Positive: true}) }, nil},
		{"number rounding onto a maximum", `{"x":100.00000000000000001}`, func(in *Input) { in.Number("x", Rule{Max: Bound(100)}) },
			map[string]string{"x": "at most 100"}},
		{"number rounding onto a minimum", `{"x":-1e-400}`, func(in *Input) { in.Number("x", Rule{Min: Bound(0)}) },
			map[string]string{"x": "of at least 0"}},
		// Literals past strconv's 800 digits are read by their own value
		// (readNumber): 2e9 written with 811 digits is over the maximum,
		// and 150 written with 903 is 150.
		{"number of 811 digits over the maximum", `{"w":2` + strings.Repeat("0", 810) + `e-801}`, func(in *Input) { in.Number("w", Rule{Positive: true}) },
			map[string]string{"w": "at most 1000000000"}},
		{"number of 903 digits", `{"w":150` + strings.Repeat("0", 900) + `e-900}`, func(in *Input) {
			if v := in.Number("w", Rule{Positive: true}); v.Value != 150 {
				in.Issue("w", fmt.Sprintf("read as %v", v.Value))
			}
		}, nil},
		{"money precision", `{"m":1.005}`, func(in *Input) { in.Money("m", Rule{}) }, map[string]string{"m": "2 decimal"}},
		{"money negative", `{"m":-1}`, func(in *Input) { in.Money("m", Rule{}) }, map[string]string{"m": "number from 0"}},
		{"bool", `{"b":"true"}`, func(in *Input) { in.Bool("b", Rule{}) }, map[string]string{"b": "boolean"}},
		{"uuid", `{"id":"123"}`, func(in *Input) { in.UUID("id", Rule{}) }, map[string]string{"id": "uuid"}},
		{"date-time", `{"t":"2026-01-01"}`, func(in *Input) { in.DateTime("t", Rule{}) }, map[string]string{"t": "RFC 3339"}},
		{"date", `{"d":"2026-13-01"}`, func(in *Input) { in.Date("d", Rule{}) }, map[string]string{"d": "YYYY-MM-DD"}},
		// Dates and date-times share one year range (storage.MinYear to
		// storage.MaxYear); a year beyond 9999 has no YYYY form at all.
		{"date year 0", `{"d":"0000-01-01"}`, func(in *Input) { in.Date("d", Rule{}) }, map[string]string{"d": "years 1900 to 9999"}},
		{"date 1899", `{"d":"1899-12-31"}`, func(in *Input) { in.Date("d", Rule{}) }, map[string]string{"d": "years 1900 to 9999"}},
		{"date 1900", `{"d":"1900-01-01"}`, func(in *Input) { in.Date("d", Rule{}) }, nil},
		{"date 9999", `{"d":"9999-12-31"}`, func(in *Input) { in.Date("d", Rule{}) }, nil},
		{"date 10000", `{"d":"10000-01-01"}`, func(in *Input) { in.Date("d", Rule{}) }, map[string]string{"d": "YYYY-MM-DD"}},
		{"date-time year 0", `{"t":"0000-01-01T00:00:00Z"}`, func(in *Input) { in.DateTime("t", Rule{}) }, map[string]string{"t": "years 1900 to 9999"}},
		{"date-time 1899", `{"t":"1899-12-31T23:59:59Z"}`, func(in *Input) { in.DateTime("t", Rule{}) }, map[string]string{"t": "years 1900 to 9999"}},
		{"date-time 1900", `{"t":"1900-01-01T00:00:00Z"}`, func(in *Input) { in.DateTime("t", Rule{}) }, nil},
		{"date-time 9999", `{"t":"9999-12-31T23:59:59Z"}`, func(in *Input) { in.DateTime("t", Rule{}) }, nil},
		{"date-time in 9999 here, 10000 in UTC", `{"t":"9999-12-31T23:00:00-12:00"}`, func(in *Input) { in.DateTime("t", Rule{}) },
			map[string]string{"t": "years 1900 to 9999 (in UTC)"}},
		{"date-time in 1900 here, 1899 in UTC", `{"t":"1900-01-01T00:30:00+01:00"}`, func(in *Input) { in.DateTime("t", Rule{}) },
			map[string]string{"t": "years 1900 to 9999 (in UTC)"}},
		{"date-time 10000", `{"t":"10000-01-01T00:00:00Z"}`, func(in *Input) { in.DateTime("t", Rule{}) }, map[string]string{"t": "RFC 3339"}},
		// Strict RFC 3339 (ParseDateTime): time.Parse would shift these.
		{"date-time offset +24:00", `{"t":"2026-01-01T00:00:00+24:00"}`, func(in *Input) { in.DateTime("t", Rule{}) },
			map[string]string{"t": "RFC 3339"}},
		{"date-time offset minute 60", `{"t":"2026-01-01T00:00:00+23:60"}`, func(in *Input) { in.DateTime("t", Rule{}) },
			map[string]string{"t": "RFC 3339"}},
		{"date-time one-digit hour", `{"t":"2026-01-01T1:00:00Z"}`, func(in *Input) { in.DateTime("t", Rule{}) },
			map[string]string{"t": "RFC 3339"}},
		{"date-time truncated to the microsecond", `{"t":"2028-01-01T00:00:00.0000019Z"}`, func(in *Input) {
			if v := in.DateTime("t", Rule{}); v.Value.Nanosecond() != 1000 {
				in.Issue("t", fmt.Sprintf("not truncated to the microsecond: %v", v.Value))
			}
		}, nil},
		{"list too long", `{"l":["a","b","c"]}`, func(in *Input) { in.StringList("l", Rule{MaxItems: 2}) }, map[string]string{"l": "at most 2"}},
		{"list not an array", `{"l":"a"}`, func(in *Input) { in.StringList("l", Rule{MaxItems: 2}) }, map[string]string{"l": "must be an array of strings"}},
		{"list item nul byte", `{"l":["ok","a\u0000b"]}`, func(in *Input) { in.StringList("l", Rule{MaxItems: 2}) },
			map[string]string{"l[1]": "must not contain NUL characters"}},
		{"list item null", `{"l":["ok",null]}`, func(in *Input) { in.StringList("l", Rule{MaxItems: 2}) },
			map[string]string{"l[1]": "must not be null"}},
		{"list item wrong type", `{"l":[1]}`, func(in *Input) { in.StringList("l", Rule{MaxItems: 2}) },
			map[string]string{"l[0]": "must be a string"}},
		{"list item too long", `{"l":["abc"]}`, func(in *Input) { in.StringList("l", Rule{MaxItems: 2, MaxLen: 2}) },
			map[string]string{"l[0]": "must be at most 2 characters"}},
		{"list item default max length", `{"l":["` + strings.Repeat("x", 256) + `"]}`, func(in *Input) { in.StringList("l", Rule{MaxItems: 2}) },
			map[string]string{"l[0]": "at most 255"}},
		{"every bad list item", `{"l":[null,"a\u0000",{},"ok"]}`, func(in *Input) { in.StringList("l", Rule{MaxItems: 4}) },
			map[string]string{"l[0]": "must not be null", "l[1]": "NUL", "l[2]": "must be a string"}},
		{"list items trimmed", `{"l":[" a ","b",""]}`, func(in *Input) {
			if v := in.StringList("l", Rule{MaxItems: 3}); strings.Join(v.Value, "|") != "a|b|" {
				in.Issue("l", "items not trimmed: "+strings.Join(v.Value, "|"))
			}
		}, nil},
		{"empty list", `{"l":[]}`, func(in *Input) {
			if v := in.StringList("l", Rule{MaxItems: 3}); v.Value == nil || len(v.Value) != 0 {
				in.Issue("l", "want an empty list")
			}
		}, nil},
		{"unknown field", `{"x":1}`, func(in *Input) {}, map[string]string{"x": "not a known field"}},
		{"read only", `{"id":"x"}`, func(in *Input) { in.ReadOnly("id") }, map[string]string{"id": "read-only"}},
		{"every issue at once", `{"a":1,"b":"x"}`, func(in *Input) { in.String("a", Rule{}); in.Int("b", Rule{}) },
			map[string]string{"a": "string", "b": "integer"}},
		{"valid values", `{"s":" ok ","n":3,"m":12.5,"t":"2026-05-01T18:00:00+02:00","d":"2026-05-01","b":false}`, func(in *Input) {
			if v := in.String("s", Rule{}); v.Value != "ok" {
				in.Issue("s", "not trimmed")
			}
			in.Int("n", Rule{Min: Bound(1)})
			if v := in.Money("m", Rule{}); v.Value != 1250 {
				in.Issue("m", "wrong amount")
			}
			if v := in.DateTime("t", Rule{}); v.Value.Hour() != 16 || v.Value.Location().String() != "UTC" {
				in.Issue("t", "not normalised to UTC")
			}
			in.Date("d", Rule{})
			in.Bool("b", Rule{})
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := ParseObject([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			tt.read(in)
			got := issuesOf(t, in.Err())
			if len(got) != len(tt.issue) {
				t.Fatalf("issues = %v, want %v", got, tt.issue)
			}
			for f, want := range tt.issue {
				if !strings.Contains(got[f], want) {
					t.Errorf("%s: issue %q does not contain %q", f, got[f], want)
				}
			}
		})
	}
}

// TestIgnoredWarningsAreBounded: a PATCH body of many unknown fields gets a
// warning naming the first errs.MaxListedFields of them, not all.
func TestIgnoredWarningsAreBounded(t *testing.T) {
	for _, n := range []int{1, errs.MaxListedFields, MaxMembers} {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"x%d":1`, i)
		}
		b.WriteString("}")
		in, err := ParseObject([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		in.Lenient(true)
		if err := in.Err(); err != nil {
			t.Fatal(err)
		}
		w := IgnoredWarnings(in)
		if got := len(w[0].Details.(IgnoredFieldsDetails).Fields); got != min(n, errs.MaxListedFields) {
			t.Errorf("%d unknown fields: %d named, want %d", n, got, min(n, errs.MaxListedFields))
		}
	}
}

// TestBoundsTextWritesNumbersAsSent: bounds read as a client would send
// them; 1e+06 would be refused as "must be an integer" if sent back.
func TestBoundsTextWritesNumbersAsSent(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		rule Rule
		want string
	}{
		{Rule{Min: f(1), Max: f(1_000_000)}, "must be an integer from 1 to 1000000"},
		{Rule{Min: f(0), Max: f(9999999999.99)}, "must be an integer from 0 to 9999999999.99"},
		{Rule{Min: f(0.5)}, "must be an integer of at least 0.5"},
		{Rule{Max: f(1e12)}, "must be an integer of at most 1000000000000"},
		{Rule{}, "must be an integer"},
	}
	for _, tt := range tests {
		if got := boundsText(tt.rule, "an integer"); got != tt.want {
			t.Errorf("boundsText(%+v) = %q, want %q", tt.rule, got, tt.want)
		}
	}
}

func TestValidEmail(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"ops@example.com", true},
		{"first.last+tag@sub.example.co.uk", true},
		{"o'brien@example.ie", true},
		{"a@b", false},
		{"ops@example.com\u200b", false},
		{"\u202eops@example.com", false},
		{"jane\u00a0doe@example.com", false},
		{"jane doe@example.com", false},
		{"😀@😀.😀", false},
		{"a@-b.com", false},
		{"a@b-.com", false},
		{"a@b_c.com", false},
		{"a@xn--.com", false},
		{"a@b..com", false},
		{strings.Repeat("l", 64) + "@example.com", true},
		{strings.Repeat("l", 65) + "@example.com", false},
		{"A <a@b.co>", false},
		{"@example.com", false},
	} {
		if got := validEmail(c.in); got != c.ok {
			t.Errorf("validEmail(%q) = %v, want %v", c.in, got, c.ok)
		}
	}
}
