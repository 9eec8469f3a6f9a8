package events

import "github.com/eventapi/eventapi/platform/database"

// The constraint names events's tables declare whose names do not say the
// field they guard; database.Error names that field in a 422.
func init() {
	database.RegisterConstraintField("events_dates_check", "end_date")
}
