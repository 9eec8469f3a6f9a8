package contract

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// RequestReferences lists the fields of the documented JSON request body of
// method on path (a full /api/v2 path) that hold a record id: every property
// of format uuid, nested ones written "line_items[0].equipment_id" (the
// first element of an array). These are the fields the isolation suite
// must point at another organization's records.
func (c *Contract) RequestReferences(method, path string) []string {
	var out []string
	walkSchema(c.requestSchema(method, path), "", 0, func(s *base.Schema, path string) bool {
		if s.Format == "uuid" && path != "" {
			out = append(out, path)
			return false
		}
		return true
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// ListFilters lists the query parameters of format uuid of the documented
// GET on path (a full /api/v2 path): the filters that take a record id.
func (c *Contract) ListFilters(path string) []string {
	return c.queryParameters(http.MethodGet, path, func(p *v3.Parameter) bool {
		s := p.Schema.Schema()
		return s != nil && s.Format == "uuid"
	})
}

// QueryParameters lists every documented query parameter of method on
// path (a full /api/v2 path).
func (c *Contract) QueryParameters(method, path string) []string {
	return c.queryParameters(method, path, func(*v3.Parameter) bool { return true })
}

// queryParameters lists, sorted, the documented query parameters of method
// on path that have a schema and that keep takes.
func (c *Contract) queryParameters(method, path string, keep func(*v3.Parameter) bool) []string {
	op := c.operation(method, path)
	if op == nil {
		return nil
	}
	var out []string
	for _, p := range op.Parameters {
		if p.In == "query" && p.Schema != nil && keep(p) {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return out
}

// BodyProperties lists the top-level properties of the documented JSON
// request body of method on path (a full /api/v2 path), those of its
// allOf, oneOf and anyOf parts included.
func (c *Contract) BodyProperties(method, path string) []string {
	schema := c.requestSchema(method, path)
	if schema == nil {
		return nil
	}
	var out []string
	properties(schema, &out, 0)
	slices.Sort(out)
	return slices.Compact(out)
}

// properties appends the property names of a schema and of its
// allOf/oneOf/anyOf parts.
func properties(proxy *base.SchemaProxy, out *[]string, depth int) {
	if proxy == nil || depth > 8 {
		return
	}
	s := proxy.Schema()
	if s == nil {
		return
	}
	for _, group := range [][]*base.SchemaProxy{s.AllOf, s.OneOf, s.AnyOf} {
		for _, sub := range group {
			properties(sub, out, depth+1)
		}
	}
	if s.Properties != nil {
		for name := range s.Properties.KeysFromOldest() {
			*out = append(*out, name)
		}
	}
}

// requestSchema is the schema of the documented JSON request body of method
// on path, or nil.
func (c *Contract) requestSchema(method, path string) *base.SchemaProxy {
	op := c.operation(method, path)
	if op == nil || op.RequestBody == nil || op.RequestBody.Content == nil {
		return nil
	}
	mt, ok := op.RequestBody.Content.Get("application/json")
	if !ok {
		return nil
	}
	return mt.Schema
}

func (c *Contract) operation(method, path string) *v3.Operation {
	tmpl, ok := c.Operation(method, path)
	if !ok {
		return nil
	}
	item, ok := c.model.Paths.PathItems.Get(tmpl)
	if !ok {
		return nil
	}
	switch strings.ToUpper(method) {
	case http.MethodGet:
		return item.Get
	case http.MethodPost:
		return item.Post
	case http.MethodPatch:
		return item.Patch
	case http.MethodPut:
		return item.Put
	case http.MethodDelete:
		return item.Delete
	}
	return nil
}

// NestedObjects lists the members of the documented JSON request body of
// method on path that are objects below the top level, written as
// RequestReferences writes them ("line_items[0]" for the elements of an
// array of objects); read-only members, which a client does not send, are
// left out. The hostile-input sweep reaches one level of them: each member
// of an array's element.
func (c *Contract) NestedObjects(method, path string) []string {
	var out []string
	walkSchema(c.requestSchema(method, path), "", 0, func(s *base.Schema, path string) bool {
		if s.ReadOnly != nil && *s.ReadOnly {
			return false
		}
		if path != "" && (slices.Contains(s.Type, "object") || s.Properties != nil) {
			out = append(out, path)
		}
		return true
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// walkSchema calls visit with the schema of proxy and its path, and, while
// visit returns true, walks what lies below it: its allOf, oneOf and anyOf
// parts at the same path, its array items at path+"[0]" (the first
// element) and its properties at path.name, to a depth of 8.
func walkSchema(proxy *base.SchemaProxy, path string, depth int, visit func(s *base.Schema, path string) bool) {
	if proxy == nil || depth > 8 {
		return
	}
	s := proxy.Schema()
	if s == nil || !visit(s, path) {
		return
	}
	for _, group := range [][]*base.SchemaProxy{s.AllOf, s.OneOf, s.AnyOf} {
		for _, sub := range group {
			walkSchema(sub, path, depth+1, visit)
		}
	}
	if s.Items != nil && s.Items.IsA() {
		walkSchema(s.Items.A, path+"[0]", depth+1, visit)
	}
	if s.Properties != nil {
		for name, p := range s.Properties.FromOldest() {
			next := name
			if path != "" {
				next = path + "." + name
			}
			walkSchema(p, next, depth+1, visit)
		}
	}
}

// QueryExample returns a value of the documented query parameter name of
// method on path that its schema accepts, as a test sends it: the first
// value of an enum (of the items of a list), a fresh uuid, a fixed
// date-time, the minimum (else 1) of an integer, true, or "x" for other
// text; false when the operation does not declare the parameter.
func (c *Contract) QueryExample(method, path, name string) (string, bool) {
	op := c.operation(method, path)
	if op == nil {
		return "", false
	}
	for _, p := range op.Parameters {
		if p.In != "query" || p.Name != name || p.Schema == nil {
			continue
		}
		s := p.Schema.Schema()
		if s != nil && s.Items != nil && s.Items.IsA() {
			s = s.Items.A.Schema()
		}
		switch {
		case s == nil:
			return "x", true
		case len(s.Enum) > 0:
			return s.Enum[0].Value, true
		case s.Format == "uuid":
			return uuid.NewString(), true
		case s.Format == "date-time":
			return "2026-06-01T00:00:00Z", true
		case slices.Contains(s.Type, "integer") && s.Minimum != nil:
			return strconv.Itoa(int(*s.Minimum)), true
		case slices.Contains(s.Type, "integer"):
			return "1", true
		case slices.Contains(s.Type, "boolean"):
			return "true", true
		}
		return "x", true
	}
	return "", false
}
