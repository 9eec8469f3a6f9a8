package storage

import (
	"reflect"
	"sync"
	"unsafe"
)

// A list page's size (Page.Bytes) is measured as its rows are read. What
// that cannot see is measured here from the records themselves, by field
// offsets found once per type, so that a page costs a few additions per
// record and no reflection: the records a page's expansions inline
// (ExpandedBytes), which the answer repeats for every record that points
// at them, and the records of a list bun scanned (textBytes).

// textPlan locates the text of a struct type by offset: its string,
// *string and []string fields, those of its embedded structs, and the
// records its expansions point at (fields of type **S of a struct S, the
// related.One of the expanded to-one relations; nested ones too, as an
// equipment's category).
type textPlan struct {
	strs    []uintptr
	strPtrs []uintptr
	strList []uintptr
	ones    []onePlan
}

// onePlan is an expansion field: its offset and the plan of its record.
type onePlan struct {
	off  uintptr
	plan *textPlan
}

var textPlans sync.Map // reflect.Type → *textPlan

// maxTextDepth bounds how deep plans follow expansions (a record type that
// pointed at itself would otherwise never end).
const maxTextDepth = 4

func textPlanOf(t reflect.Type) *textPlan {
	if p, ok := textPlans.Load(t); ok {
		return p.(*textPlan)
	}
	p := &textPlan{}
	p.add(t, 0, 0)
	v, _ := textPlans.LoadOrStore(t, p)
	return v.(*textPlan)
}

var (
	stringType     = reflect.TypeFor[string]()
	stringPtrType  = reflect.TypeFor[*string]()
	stringListType = reflect.TypeFor[[]string]()
)

// add adds the text fields of the struct type t found at base.
func (p *textPlan) add(t reflect.Type, base uintptr, depth int) {
	for i := range t.NumField() {
		f := t.Field(i)
		off := base + f.Offset
		switch ft := f.Type; {
		case ft == stringType:
			p.strs = append(p.strs, off)
		case ft == stringPtrType:
			p.strPtrs = append(p.strPtrs, off)
		case ft == stringListType:
			p.strList = append(p.strList, off)
		case f.Anonymous && ft.Kind() == reflect.Struct:
			p.add(ft, off, depth)
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Pointer &&
			ft.Elem().Elem().Kind() == reflect.Struct && depth < maxTextDepth:
			one := &textPlan{}
			one.add(ft.Elem().Elem(), 0, depth+1)
			p.ones = append(p.ones, onePlan{off: off, plan: one})
		}
	}
}

// size returns the bytes of the text of the record at r, its own when own,
// and that of the records its expansions point at.
func (p *textPlan) size(r unsafe.Pointer, own bool) int {
	n := 0
	if own {
		for _, off := range p.strs {
			n += len(*(*string)(unsafe.Add(r, off)))
		}
		for _, off := range p.strPtrs {
			if s := *(**string)(unsafe.Add(r, off)); s != nil {
				n += len(*s)
			}
		}
		for _, off := range p.strList {
			for _, s := range *(*[]string)(unsafe.Add(r, off)) {
				n += len(s)
			}
		}
	}
	for _, o := range p.ones {
		if pp := *(**unsafe.Pointer)(unsafe.Add(r, o.off)); pp != nil && *pp != nil {
			n += o.plan.size(*pp, true)
		}
	}
	return n
}

// ExpandedBytes is the size of the records items' expansions inline (their
// to-one relations, related.One), counted once for every item that points
// at one, as the answer repeats it: the bytes of their texts. A list
// handler adds it to its page's Bytes once the page is expanded.
func ExpandedBytes[T any](items []T) int {
	p := textPlanOf(reflect.TypeFor[T]())
	if len(p.ones) == 0 {
		return 0
	}
	n := 0
	for i := range items {
		n += p.size(unsafe.Pointer(&items[i]), false)
	}
	return n
}

// textBytes is the size of records bun scanned, where their raw values are
// not seen: the bytes of their texts, and of what their expansions hold.
func textBytes[T any](items []T) int {
	p := textPlanOf(reflect.TypeFor[T]())
	n := 0
	for i := range items {
		n += p.size(unsafe.Pointer(&items[i]), true)
	}
	return n
}
