package v1

import (
	"bytes"
	"maps"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/api/storage/v1store"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// dimensionFields are the writable positive numbers of v1 equipment: the
// case columns, as on v2.
var dimensionFields = equipment.CaseColumns

// caseTypes are the allowed values of case_type: the stored ones, as on v2.
var caseTypes = equipment.CaseTypes

// writableFields are every field a v1 PATCH may change.
var writableFields = append(append([]string{}, dimensionFields...), "case_type")

// readOnlyFields are the other fields of v1 equipment. A PATCH may carry them
// (a caller may send back what it read) but they are ignored; they never
// count as the writable field a PATCH must contain.
var readOnlyFields = []string{"id", "name", "model", "manufacturer", "serial_number", "category",
	"status", "organization_id", "created_at", "updated_at"}

// patchIssues is the one text reported for any bad value of a writable field
// (a non-number, zero, negative or unknown case type; a null over a stored
// value has nullIssue).
var patchIssues = func() map[string]string {
	m := map[string]string{"case_type": "must be one of: " + strings.Join(caseTypes, ", ")}
	for _, f := range dimensionFields {
		m[f] = rest.PositiveNumberIssue
	}
	return m
}()

// nullIssue is the text for a null over a stored value: v1 cannot clear a
// field (docs/v1.md).
const nullIssue = "cannot be cleared through v1 (null over a stored value): leave it out, or clear it with v2"

// issuesOf is patchIssues with nullIssue for the fields in gives as null
// (decodePatch refuses a null only over a stored value).
func issuesOf(in *rest.Input) map[string]string {
	m := maps.Clone(patchIssues)
	for _, f := range writableFields {
		if isNull(in, f) {
			m[f] = nullIssue
		}
	}
	return m
}

// storedNulls are the writable fields whose stored value is null.
type storedNulls map[string]bool

// nullsOf returns the writable fields of e that are stored null.
func nullsOf(e *v1store.Equipment) storedNulls {
	return storedNulls{
		"case_length_in": e.CaseLengthIn == nil,
		"case_width_in":  e.CaseWidthIn == nil,
		"case_height_in": e.CaseHeightIn == nil,
		"weight_lbs":     e.WeightLbs == nil,
		"case_type":      e.CaseType == nil,
	}
}

// isNull reports whether the body gives the JSON null for field.
func isNull(in *rest.Input, field string) bool {
	raw, ok := in.Raw(field)
	return ok && string(bytes.TrimSpace(raw)) == "null"
}

// sendsNull reports whether the body gives null for a writable field, which
// only the stored record can judge.
func sendsNull(in *rest.Input) bool {
	return slices.ContainsFunc(writableFields, func(f string) bool { return isNull(in, f) })
}

// decodePatch reads a v1 equipment PATCH body into column assignments. Bad
// values, unknown fields and a body with no writable field are 400
// BAD_REQUEST naming the fields. A null is a no-op for a field in nulls (the
// stored value is null too) and a bad value for any other, so a record read
// with GET can be sent back as it is (docs/v1.md, "PATCH /equipment/{id}").
func decodePatch(in *rest.Input, nulls storedNulls) (storage.Changes, error) {
	var ch storage.Changes
	kept := false // a null was sent for a stored null: a writable field, unchanged
	keepsNull := func(f string) bool {
		if nulls[f] && isNull(in, f) {
			kept = true
			return true
		}
		return false
	}
	for _, f := range dimensionFields {
		if keepsNull(f) {
			continue
		}
		v := in.Number(f, rest.Rule{Positive: true})
		ch.SetIf(v.Set, f, v.Value)
	}
	if !keepsNull("case_type") {
		ct := in.String("case_type", rest.Rule{OneOf: caseTypes})
		ch.SetIf(ct.Set, "case_type", ct.Value)
	}
	in.Ignore(readOnlyFields...)
	if err := in.Err(); err != nil {
		return ch, nameFields(err, issuesOf(in))
	}
	if ch.Len() == 0 && !kept {
		return ch, errs.InvalidField("body", "must contain at least one writable field: "+strings.Join(writableFields, ", "))
	}
	return ch, nil
}

// patchEquipment serves PATCH /equipment/{id}: it writes the given fields
// (updated_at moves only when a value changed, storage.Update) and answers
// the record as read back with its category.
func patchEquipment(env *rest.Env) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := rest.PathID(c, v1store.EquipmentView.Kind)
		if err != nil {
			return err
		}
		in, err := rest.Body(c)
		if err != nil {
			return err
		}
		// A body without a null is decoded before any read, so a bad one is
		// 400 whatever the id; one with a null is decoded against the stored
		// record (docs/v1.md), so an unknown id is then 404 first.
		withNull := sendsNull(in)
		var ch storage.Changes
		if !withNull {
			if ch, err = decodePatch(in, nil); err != nil {
				return err
			}
		}
		ctx := c.UserContext()
		org := tenancy.OrgID(ctx)
		out, err := v1store.PatchEquipment(ctx, env.Conn(ctx), org, id, withNull,
			func(stored *v1store.Equipment) (storage.Changes, error) {
				if !withNull {
					return ch, nil
				}
				return decodePatch(in, nullsOf(stored))
			})
		if err != nil {
			return err
		}
		return writeOne(c, org, out)
	}
}
