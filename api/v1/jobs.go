package v1

import (
	"slices"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/v1store"
)

// jobStatusOf maps each event status to its v1 job status (docs/v1.md,
// "Job"). The v1 status filter uses the same table in reverse.
var jobStatusOf = map[string]string{
	events.StatusInquiry:    "draft",
	events.StatusTentative:  "draft",
	events.StatusConfirmed:  "active",
	events.StatusInProgress: "active",
	events.StatusCompleted:  "completed",
	events.StatusCancelled:  "cancelled",
}

// jobStatuses are the v1 job statuses, in the order v1.yaml's JobStatus
// enum and docs/v1.md, "Job", list them.
var jobStatuses = []string{"active", "completed", "cancelled", "draft"}

// eventStatusesOf returns the event statuses that map to a job status.
func eventStatusesOf(job string) []string {
	var out []string
	for event, j := range jobStatusOf {
		if j == job {
			out = append(out, event)
		}
	}
	slices.Sort(out)
	return out
}

// jobs are the events read as v1 jobs: their list takes the status filter,
// and each is rendered with its job status.
var jobs = resource[v1store.Job]{
	view:    v1store.JobView,
	filters: jobFilters,
	render:  func(j *v1store.Job) { j.Status = jobStatusOf[j.EventStatus] },
}

// jobFilters reads the optional v1 status filter.
func jobFilters(c *fiber.Ctx) ([]storage.Filter, error) {
	status, err := rest.QueryEnum(c, "status", jobStatuses...)
	if err != nil {
		return nil, err
	}
	if status == "" {
		return nil, nil
	}
	return []storage.Filter{v1store.EventStatusIn(eventStatusesOf(status))}, nil
}
