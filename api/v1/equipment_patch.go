package v1

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// dimensionFields are the writable positive numbers of v1 equipment.
var dimensionFields = []string{"case_length_in", "case_width_in", "case_height_in", "weight_lbs"}

// caseTypes are the allowed values of case_type.
var caseTypes = []string{"road_case", "soft_case", "pelican"}

// writableFields are every field a v1 PATCH may change.
var writableFields = append(append([]string{}, dimensionFields...), "case_type")

// readOnlyFields are the other fields of v1 equipment. A PATCH may carry them
// (a caller may send back what it read) but they are ignored; they never
// count as the writable field a PATCH must contain.
var readOnlyFields = []string{"id", "name", "model", "manufacturer", "serial_number", "category",
	"status", "organization_id", "created_at", "updated_at"}

// patchIssues is the one text reported for any bad value of a writable field
// (a non-number, null, zero, negative or unknown case type).
var patchIssues = func() map[string]string {
	m := map[string]string{"case_type": "must be one of: " + strings.Join(caseTypes, ", ")}
	for _, f := range dimensionFields {
		m[f] = rest.PositiveNumberIssue
	}
	return m
}()

// decodePatch reads a v1 equipment PATCH body into column assignments. Bad
// values, unknown fields and a body with no writable field are 400
// BAD_REQUEST naming the fields.
func decodePatch(in *rest.Input) (storage.Changes, error) {
	var ch storage.Changes
	for _, f := range dimensionFields {
		v := in.Number(f, rest.Rule{Positive: true})
		ch.SetIf(v.Set, f, v.Value)
	}
	ct := in.String("case_type", rest.Rule{OneOf: caseTypes})
	ch.SetIf(ct.Set, "case_type", ct.Value)
	in.Ignore(readOnlyFields...)
	if err := in.Err(); err != nil {
		return ch, nameFields(err, patchIssues)
	}
	if ch.Len() == 0 {
		return ch, badRequestf("body", "must contain at least one writable field: "+strings.Join(writableFields, ", "))
	}
	return ch, nil
}

// patchEquipment serves PATCH /equipment/{id}: it writes the given fields
// (updated_at moves only when a value changed, storage.Update) and answers
// the record as read back with its category.
func patchEquipment(env *rest.Env) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := rest.PathID(c, equipmentView.kind)
		if err != nil {
			return err
		}
		in, err := rest.Body(c)
		if err != nil {
			return nameFields(err, nil)
		}
		ch, err := decodePatch(in)
		if err != nil {
			return err
		}
		ctx := c.UserContext()
		org := tenancy.OrgID(ctx)
		var out *Equipment
		err = database.RunInTx(ctx, env.Conn(ctx), func(ctx context.Context, tx bun.Tx) error {
			if _, err := storage.Update[Equipment](ctx, tx, org, id, equipmentView.kind, ch); err != nil {
				return err
			}
			out, err = equipmentView.get(ctx, tx, org, id)
			return err
		})
		if err != nil {
			return err
		}
		return writeOne(c, org, out)
	}
}
