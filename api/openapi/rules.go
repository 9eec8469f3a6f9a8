package openapi

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/eventapi/eventapi/api/rest"
)

// schema is the part of a JSON Schema that request rules are read from.
type schema struct {
	Ref              string             `json:"$ref"`
	Type             any                `json:"type"`
	Format           string             `json:"format"`
	Enum             []any              `json:"enum"`
	MinLength        *int               `json:"minLength"`
	MaxLength        *int               `json:"maxLength"`
	Minimum          *float64           `json:"minimum"`
	Maximum          *float64           `json:"maximum"`
	ExclusiveMinimum *float64           `json:"exclusiveMinimum"`
	Pattern          string             `json:"pattern"`
	MaxItems         *int               `json:"maxItems"`
	UniqueItems      bool               `json:"uniqueItems"`
	Items            *schema            `json:"items"`
	AnyOf            []*schema          `json:"anyOf"`
	Required         []string           `json:"required"`
	Properties       map[string]*schema `json:"properties"`
}

var schemas struct {
	once sync.Once
	all  map[string]*schema
	err  error
}

func components() (map[string]*schema, error) {
	schemas.once.Do(func() {
		var doc struct {
			Components struct {
				Schemas map[string]*schema `json:"schemas"`
			} `json:"components"`
		}
		b, err := JSON()
		if err == nil {
			err = json.Unmarshal(b, &doc)
		}
		schemas.all, schemas.err = doc.Components.Schemas, err
	})
	return schemas.all, schemas.err
}

// Rules returns the field rules of the request body schema name (for
// example "ReservationCreate"), read from the document: required, nullable,
// maxLength, minLength, format email, enum (also through $ref and anyOf),
// pattern, minimum, maximum, exclusiveMinimum 0 (positive), maxItems and
// uniqueItems.
// Decoders take every per-field limit from here, so a limit is changed in
// openapi.yaml alone (docs/decisions.md, "Each request rule once"). It is
// called at package initialisation; an unknown schema or a rule it cannot
// express panics, which every test binary of the resource reports.
func Rules(name string) rest.Rules {
	all, err := components()
	if err != nil {
		panic(fmt.Sprintf("openapi rules: %v", err))
	}
	s, ok := all[name]
	if !ok || s.Properties == nil {
		panic("openapi rules: no object schema " + name)
	}
	rules := rest.Rules{}
	for field, p := range s.Properties {
		r, err := ruleOf(all, p)
		if err != nil {
			panic(fmt.Sprintf("openapi rules: %s.%s: %v", name, field, err))
		}
		r.Required = slices.Contains(s.Required, field)
		rules[field] = r
	}
	return rules
}

// ruleOf turns one property schema into a rest.Rule.
func ruleOf(all map[string]*schema, p *schema) (rest.Rule, error) {
	var r rest.Rule
	for _, alt := range append([]*schema{p}, p.AnyOf...) {
		if alt.Ref != "" {
			target, ok := all[strings.TrimPrefix(alt.Ref, "#/components/schemas/")]
			if !ok {
				return r, fmt.Errorf("unresolved %s", alt.Ref)
			}
			alt = target
		}
		types := typesOf(alt.Type)
		if slices.Contains(types, "null") {
			r.Nullable = true
		}
		for _, v := range alt.Enum {
			s, ok := v.(string)
			if !ok {
				return r, fmt.Errorf("enum value %v is not a string", v)
			}
			r.OneOf = append(r.OneOf, s)
		}
		if alt.Format == "email" {
			r.Email = true
		}
		if alt.Pattern != "" {
			re, err := regexp.Compile(alt.Pattern)
			if err != nil {
				return r, err
			}
			r.Match = re
		}
		str := alt
		if alt.Items != nil {
			str = alt.Items // a string array: the limits of each item
		}
		if str.MaxLength != nil {
			r.MaxLen = *str.MaxLength
		}
		if str.MinLength != nil {
			r.MinLen = *str.MinLength
		}
		if alt.MaxItems != nil {
			r.MaxItems = *alt.MaxItems
		}
		r.UniqueItems = r.UniqueItems || alt.UniqueItems
		if alt.Minimum != nil {
			r.Min = rest.Bound(*alt.Minimum)
		}
		// An integer's maximum of 2^31-1 is the range Input.Int enforces
		// itself (as "must be an integer"), not a limit of the field.
		if alt.Maximum != nil && !(slices.Contains(types, "integer") && *alt.Maximum == math.MaxInt32) {
			r.Max = rest.Bound(*alt.Maximum)
		}
		if alt.ExclusiveMinimum != nil {
			if *alt.ExclusiveMinimum != 0 {
				return r, fmt.Errorf("exclusiveMinimum other than 0")
			}
			r.Positive = true
		}
	}
	return r, nil
}

func typesOf(t any) []string {
	switch v := t.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// MaxItems returns the maxItems of the array schema name (for example
// "LineItemsInput"); like Rules it panics when the document lacks it.
func MaxItems(name string) int {
	all, err := components()
	if err != nil {
		panic(fmt.Sprintf("openapi rules: %v", err))
	}
	if s, ok := all[name]; ok && s.MaxItems != nil {
		return *s.MaxItems
	}
	panic("openapi rules: no maxItems on schema " + name)
}
