package demo

import "context"

// bookings seeds reservations, quotes, invoices and pick lists.
func (s *seeder) bookings(ctx context.Context) error { return nil }
