package rest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/platform/errs"
)

// members is a JSON object of n members named prefix0, prefix1, …
func members(prefix string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"%s%d":%d`, prefix, i, i)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestMemberBound: an object of MaxMembers members, at any depth, is read;
// one of more is 400 malformed_json naming the object, before any name is
// read. Only object members count, and only those of one object.
func TestMemberBound(t *testing.T) {
	over := fmt.Sprintf("more than %s members in ", thousands(MaxMembers))
	tests := []struct {
		name, body string
		where      string // "": read
	}{
		{"top level at the bound", members("x", MaxMembers), ""},
		{"top level over the bound", members("x", MaxMembers+1), "the top-level object"},
		{"a line at the bound", `{"line_items":[{},` + members("x", MaxMembers) + `]}`, ""},
		{"a line over the bound", `{"line_items":[{},` + members("x", MaxMembers+1) + `]}`, "the object at /line_items/1"},
		{"deep over the bound", `{"a/b":{"c~d":[` + members("x", MaxMembers+1) + `]}}`, "the object at /a~1b/c~0d/0"},
		{"two objects at the bound each", `{"a":` + members("x", MaxMembers-1) + `,"b":` + members("y", MaxMembers) + `}`, ""},
		{"an array of many values", `{"tags":[` + strings.Repeat(`"t",`, 5*MaxMembers) + `"t"]}`, ""},
		{"commas and braces in strings", `{"a":"` + strings.Repeat(`,\"{,`, 2*MaxMembers) + `"}`, ""},
		{"many names in a string", `{"a":` + quote(members("x", MaxMembers+1)) + `}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseObject([]byte(tt.body))
			if tt.where == "" {
				if err != nil && !errs.Is(err, errs.Validation) {
					t.Fatalf("ParseObject = %v, want it read", err)
				}
				return
			}
			want := "the request body has " + over + tt.where + "; an object may have at most 1,000 members"
			if e := errs.As(err); e == nil || e.Code != errs.MalformedJSON || e.Message != want {
				t.Fatalf("ParseObject = %v, want malformed_json %q", err, want)
			}
		})
	}
}

// quote writes s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// oracleErr is what Input.Err answered before it bounded the names it makes
// issues of: every unknown name an issue, after the others, in name order;
// every ignored name kept, sorted.
func oracleErr(handler []errs.FieldIssue, unknown []string) error {
	sort.Strings(unknown)
	issues := slices.Clone(handler)
	for _, k := range unknown {
		issues = append(issues, errs.FieldIssue{Field: errs.Echo(k), Issue: "is not a known field"})
	}
	if len(issues) == 0 {
		return nil
	}
	return errs.Invalid(issues...)
}

// TestUnknownFieldsCounted: a body of more unknown fields than an answer
// lists names the same first errs.MaxListedFields as a list of every one
// would, and counts them all in the message, with or without other issues.
func TestUnknownFieldsCounted(t *testing.T) {
	for _, n := range []int{0, 1, 2, errs.MaxListedFields - 1, errs.MaxListedFields, errs.MaxListedFields + 1, errs.MaxListedFields + 2, MaxMembers - 3} {
		for _, bad := range []int{0, 1, 3} {
			t.Run(fmt.Sprintf("%d unknown, %d bad", n, bad), func(t *testing.T) {
				// Names in an order other than sorted: z9 before z10.
				var unknown []string
				parts := []string{}
				for i := range n {
					name := fmt.Sprintf("z%d", n-i)
					unknown = append(unknown, name)
					parts = append(parts, fmt.Sprintf("%q:1", name))
				}
				var handler []errs.FieldIssue
				for i := range bad {
					name := fmt.Sprintf("a%d", i)
					parts = append(parts, fmt.Sprintf("%q:\"x\"", name))
					handler = append(handler, errs.FieldIssue{Field: name, Issue: "must be an integer"})
				}
				in, err := ParseObject([]byte("{" + strings.Join(parts, ",") + "}"))
				if err != nil {
					t.Fatal(err)
				}
				for i := range bad {
					in.Int(fmt.Sprintf("a%d", i), Rule{})
				}
				got, want := in.Err(), oracleErr(handler, unknown)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("Err() =\n%#v\nwant\n%#v", got, want)
				}
				if total := n + bad; total > errs.MaxListedFields {
					wantMsg := fmt.Sprintf("request validation failed: %d fields, the first %d listed", total, errs.MaxListedFields)
					if e := errs.As(got); e.Message != wantMsg {
						t.Errorf("message %q, want %q", e.Message, wantMsg)
					}
				}
				if again := in.Err(); !reflect.DeepEqual(again, want) {
					t.Errorf("Err() again = %v, want the same answer", again)
				}
			})
		}
	}
}

// TestUnknownFieldsMadeIssues: of many unknown fields, at most
// errs.MaxListedFields+1 become issues; the others are counted.
func TestUnknownFieldsMadeIssues(t *testing.T) {
	in, err := ParseObject([]byte(members("x", MaxMembers)))
	if err != nil {
		t.Fatal(err)
	}
	_ = in.Err()
	if len(in.issues) != errs.MaxListedFields+1 || in.unlisted != MaxMembers-errs.MaxListedFields-1 {
		t.Fatalf("%d issues made, %d counted; want %d and %d", len(in.issues), in.unlisted, errs.MaxListedFields+1, MaxMembers-errs.MaxListedFields-1)
	}
}

// TestIgnoredFieldsBounded: a lenient body's ignored_fields warning names
// the same first errs.MaxListedFields sorted names as a list of every
// ignored name would, from unknown, read-only and noted names, repeats
// and long names cut by errs.Echo included; Input keeps a few of them.
func TestIgnoredFieldsBounded(t *testing.T) {
	long := strings.Repeat("l", 2*errs.MaxEcho)
	for _, n := range []int{0, 1, errs.MaxListedFields, errs.MaxListedFields + 1, MaxMembers - 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			parts := []string{`"id":"x"`, `"name":"n"`, fmt.Sprintf("%q:1", long+"b")}
			all := []string{"id", errs.Echo(long + "b")}
			for i := range n {
				name := fmt.Sprintf("u%d", n-i)
				parts = append(parts, fmt.Sprintf("%q:1", name))
				all = append(all, name)
			}
			in, err := ParseObject([]byte("{" + strings.Join(parts, ",") + "}"))
			if err != nil {
				t.Fatal(err)
			}
			in.Lenient(true)
			in.String("name", Rule{})
			in.ReadOnly("id")
			noted := []string{"line_items[0].id", "line_items[0].id", "line_items[10].id", "line_items[2].id", "a"}
			for i := range 3 * errs.MaxListedFields {
				noted = append(noted, fmt.Sprintf("line_items[%d].line_total", i))
			}
			in.NoteIgnored(noted...)
			all = append(all, noted...)
			if err := in.Err(); err != nil {
				t.Fatal(err)
			}
			sort.Strings(all)
			all = slices.Compact(all)
			want := []Warning{{Code: WarningIgnoredFields, Details: IgnoredFieldsDetails{Fields: all[:min(len(all), errs.MaxListedFields)]}}}
			if got := IgnoredWarnings(in); !reflect.DeepEqual(got, want) {
				t.Fatalf("IgnoredWarnings =\n%v\nwant\n%v", got, want)
			}
			if kept := len(in.ignored.names); kept > 2*listedNames {
				t.Errorf("%d ignored names kept, want at most %d", kept, 2*listedNames)
			}
		})
	}
}

// TestReadMembersAsEncodingJSON: the members ParseObject reads are the
// names and values encoding/json reads into a map, escapes and white
// space included.
func TestReadMembersAsEncodingJSON(t *testing.T) {
	for _, body := range []string{
		`{}`, ` { } `, `{"a":1}`, "\t{ \"a\" :\n 1 , \"b\":[1, {\"c\" : null}] ,\"d\":{\"e\":\"}\"}}\n",
		`{"n\u0061me":"x","":0,"\"q\"":true,"\\":false,"é":"\u00e9","😀":-0.5e10,"a\/b":"\/"}`,
		`{"z":1,"y":2,"x":{"w":[[],{}]},"v":"a\"b\\c"}`,
		`{"notes":"line\nbreak","n":1.0,"m":12.50,"s":"  padded  "}`,
	} {
		in, err := ParseObject([]byte(body))
		if err != nil {
			t.Fatalf("ParseObject(%s): %v", body, err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if got := in.Keys(); !slices.Equal(got, keys) {
			t.Errorf("Keys(%s) = %q, want %q", body, got, keys)
		}
		for k, v := range m {
			if got, ok := in.Raw(k); !ok || string(got) != string(v) {
				t.Errorf("Raw(%q) of %s = %s, %v; want %s", k, body, got, ok, v)
			}
		}
		if in.Has("absent") {
			t.Errorf("Has(absent) of %s", body)
		}
	}
}

// TestFlatRepeatedName: a body of one object finds a repeated name from its
// sorted names, and names the first repeated in the body's order, as the
// check of every object does.
func TestFlatRepeatedName(t *testing.T) {
	for body, name := range map[string]string{
		`{"b":1,"a":1,"b":2,"a":2}`: "b",
		`{"a":1,"\u0061":2}`:        "a",
		`{"x":1,"y":2,"x":[]}`:      "x",
	} {
		want := fmt.Sprintf("the request body gives the name %q more than once in the top-level object; each name may appear once in an object", name)
		_, err := ParseObject([]byte(body))
		if e := errs.As(err); e == nil || e.Code != errs.MalformedJSON || e.Message != want {
			t.Errorf("ParseObject(%s) = %v, want %q", body, err, want)
		}
	}
}

// TestThousands writes the bound as the message does.
func TestThousands(t *testing.T) {
	for n, want := range map[int]string{1: "1", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
