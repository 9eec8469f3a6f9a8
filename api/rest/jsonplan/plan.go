// Package jsonplan encodes a response by a plan made once per type, with
// the bytes encoding/json writes. It knows nothing of HTTP or of the API's
// envelopes: api/rest asks it for the plan of a response's type (Of) and,
// when there is one, has the plan write the value (Plan.Append); a type
// without a plan is encoded by goccy/go-json (rest.Encode).
//
// A plan is made as api/storage scans rows by a plan per model: each struct
// field's key, offset and encoder are found once, and a value is then
// written by walking its memory, without goccy's virtual machine and
// without calling a method per value. It writes a uuid's 36 characters
// straight into the body, where both encoding/json and goccy call
// MarshalText, which allocates them, and then escape them (a tenth of a
// 1000-item manifest's CPU; docs/architecture.md, "JSON").
//
// The kinds a plan writes are the ones encoding/json writes without a
// method of the type, plus three types whose methods a plan writes the same
// bytes as: strings, bools, ints, float64, uuid.UUID (MarshalText),
// time.Time and money.Amount (MarshalJSON, whose output encoding/json
// compacts: already compact); pointers to, slices of and structs of those.
// Any other type (a map, an interface, a type with its own MarshalJSON or
// MarshalText, a struct tag option other than omitempty or omitzero, an
// embedded struct that has fields, a duplicated or escaped key, a recursive
// type) has no plan, and the whole value is encoded by goccy as before. The
// tests compare a plan's bytes with encoding/json's: the records of several
// resources filled at random, every byte in strings, floats and times by
// the hundred thousand here; the manifest with nulls, escapes, unicode,
// money and the three states of an expansion in its envelopes in api/rest;
// and the test harness compares every response of the suite (api/apitest).
package jsonplan

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/money"
)

// op is what a plan writes.
type op uint8

const (
	opString op = iota + 1
	opBool
	opInt
	opInt64
	opInt32
	opFloat64
	opUUID
	opTime
	opMoney
	opPtr
	opSlice
	opStruct
)

// Plan encodes the values of one type: a node of the plan of a type built
// of others (a pointer's element, a slice's, a struct's fields) is the plan
// of that type.
type Plan struct {
	op     op
	elem   *Plan       // opPtr: the pointee; opSlice: the element
	size   uintptr     // opSlice: the element's size
	fields []planField // opStruct
}

// planField is one field of a struct plan.
type planField struct {
	key       string // `,"name":`: the comma is left out before the first
	offset    uintptr
	omitEmpty bool
	omitZero  bool
	node      *Plan
}

var (
	uuidType   = reflect.TypeFor[uuid.UUID]()
	timeType   = reflect.TypeFor[time.Time]()
	moneyType  = reflect.TypeFor[money.Amount]()
	numberType = reflect.TypeFor[json.Number]()

	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
)

// plans caches one plan per type; a nil plan means goccy encodes the type.
var plans sync.Map // reflect.Type → *Plan

// Of returns the plan of t, or nil when t has none (the caller encodes the
// value otherwise). Plans are made once per type and shared.
func Of(t reflect.Type) *Plan {
	if t == nil {
		return nil
	}
	if v, ok := plans.Load(t); ok {
		return v.(*Plan)
	}
	n := newPlan(t, map[reflect.Type]bool{})
	plans.Store(t, n)
	return n
}

// newPlan builds the plan of t; visiting holds the struct types being
// built, so a recursive type gets no plan.
func newPlan(t reflect.Type, visiting map[reflect.Type]bool) *Plan {
	switch t {
	case uuidType:
		return &Plan{op: opUUID}
	case timeType:
		return &Plan{op: opTime}
	case moneyType:
		return &Plan{op: opMoney}
	case numberType:
		return nil
	}
	if t.Kind() != reflect.Pointer && hasMethods(t) {
		return nil // a pointer has its element's methods: decided there
	}
	switch t.Kind() {
	case reflect.String:
		return &Plan{op: opString}
	case reflect.Bool:
		return &Plan{op: opBool}
	case reflect.Int:
		return &Plan{op: opInt}
	case reflect.Int64:
		return &Plan{op: opInt64}
	case reflect.Int32:
		return &Plan{op: opInt32}
	case reflect.Float64:
		return &Plan{op: opFloat64}
	case reflect.Pointer:
		if e := newPlan(t.Elem(), visiting); e != nil {
			return &Plan{op: opPtr, elem: e}
		}
	case reflect.Slice:
		if e := newPlan(t.Elem(), visiting); e != nil {
			return &Plan{op: opSlice, elem: e, size: t.Elem().Size()}
		}
	case reflect.Struct:
		if visiting[t] {
			return nil
		}
		visiting[t] = true
		defer delete(visiting, t)
		return structPlan(t, visiting)
	}
	return nil
}

// hasMethods reports whether encoding/json would call a method of t (or of
// *t, on an addressable value) to encode it.
func hasMethods(t reflect.Type) bool {
	for _, m := range []reflect.Type{marshalerType, textMarshalerType} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return true
		}
	}
	return false
}

func structPlan(t reflect.Type, visiting map[reflect.Type]bool) *Plan {
	n := &Plan{op: opStruct}
	names := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("json")
		if sf.Anonymous {
			// An embedded struct without fields and without a tag, such
			// as bun.BaseModel, contributes nothing; any other embedding
			// promotes fields by rules a plan does not follow.
			if sf.Type.Kind() == reflect.Struct && sf.Type.NumField() == 0 && !tagged {
				continue
			}
			return nil
		}
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		if !plainName(name) || names[name] {
			return nil // escaped or duplicated names: encoding/json's rules
		}
		names[name] = true
		f := planField{key: `,"` + name + `":`, offset: sf.Offset}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "":
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = true
			default:
				return nil // ",string" and the like
			}
		}
		if f.node = newPlan(sf.Type, visiting); f.node == nil {
			return nil
		}
		if (f.omitEmpty || f.omitZero) && !omittable(sf.Type, f.node, f.omitZero) {
			return nil
		}
		n.fields = append(n.fields, f)
	}
	return n
}

// plainName reports whether a key is ASCII letters, digits and
// underscores, which encoding/json writes as they are.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// omittable reports whether a plan decides omitempty (and omitzero, when
// zero) for a field of type t as encoding/json does: its emptiness and its
// zero value are read from memory, never from an IsZero method.
func omittable(t reflect.Type, n *Plan, zero bool) bool {
	if zero && (t.Implements(isZeroerType) || reflect.PointerTo(t).Implements(isZeroerType)) {
		return false
	}
	switch n.op {
	case opString, opBool, opInt, opInt64, opInt32, opFloat64, opPtr, opSlice:
		return true
	}
	return false
}
