package demo

import (
	"context"

	"github.com/eventapi/eventapi/api/clients"
	"github.com/eventapi/eventapi/api/scoped"
)

// catalogue seeds clients, crew, categories, equipment, vehicles and events.
func (s *seeder) catalogue(ctx context.Context) error {
	for _, c := range []struct{ name, email, city string }{
		{"Harbor Lights Festival", "production@harborlights.example", "Portland"},
		{"Meridian Conference Center", "events@meridiancc.example", "Seattle"},
		{"Northwind Corporate Events", "ops@northwind.example", "Tacoma"},
	} {
		var ch scoped.Changes
		ch.Set("name", c.name)
		ch.Set("email", c.email)
		ch.Set("city", c.city)
		cl, err := clients.Create(ctx, s.tx, s.org, s.demo, ch)
		if err != nil {
			return err
		}
		s.clients = append(s.clients, cl.ID)
	}
	return nil
}
