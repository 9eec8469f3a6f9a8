package reservations

import "github.com/eventapi/eventapi/platform/database"

// The constraint names reservations's tables declare whose names do not say the
// field they guard; database.Error names that field in a 422.
func init() {
	database.RegisterConstraintField("equipment_reservations_dates_check", "end_date")
}
