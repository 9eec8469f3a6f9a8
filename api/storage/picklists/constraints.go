package picklists

import "github.com/eventapi/eventapi/platform/database"

// The constraint names picklists's tables declare whose names do not say the
// field they guard; database.Error names that field in a 422.
func init() {
	database.RegisterConstraintField("pick_list_items_what_check", "equipment_id")
}
