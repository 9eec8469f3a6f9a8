package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/clients"
	"github.com/eventapi/eventapi/api/storage/crew"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/vehicles"
	"github.com/eventapi/eventapi/platform/money"
)

// catalogue seeds clients, crew, categories, equipment, vehicles and events
// through the resource stores, and records their ids on the seeder for the
// bookings step.
func (s *seeder) catalogue(ctx context.Context) error {
	for _, step := range []func(context.Context) error{s.seedClients, s.seedCrew, s.seedEquipment, s.seedVehicles, s.seedEvents} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// cols is a record to seed: column → value (nil values are left out).
type cols map[string]any

func (c cols) changes() storage.Changes {
	var ch storage.Changes
	for _, k := range sortedKeys(c) {
		if c[k] != nil {
			ch.Set(k, c[k])
		}
	}
	return ch
}

func (s *seeder) seedClients(ctx context.Context) error {
	for _, c := range []cols{
		{"name": "Harbor Lights Festival", "email": "production@harborlights.example", "phone": "+1 503 555 0110", "city": "Portland", "state": "OR"},
		{"name": "Meridian Conference Center", "email": "events@meridiancc.example", "phone": "+1 206 555 0142", "city": "Seattle", "state": "WA"},
		{"name": "Northwind Corporate Events", "email": "ops@northwind.example", "phone": "+1 253 555 0187", "city": "Tacoma", "state": "WA"},
		{"name": "Cascade Music Awards", "email": "tech@cascadeawards.example", "city": "Seattle", "state": "WA",
			"notes": "Broadcast truck on site; coordinate power with the OB provider"},
		{"name": "Evergreen Robotics", "email": "marketing@evergreenrobotics.example", "phone": "+1 425 555 0166", "city": "Redmond", "state": "WA"},
	} {
		cl, err := clients.Create(ctx, s.tx, s.t, c.changes())
		if err != nil {
			return err
		}
		s.clients = append(s.clients, cl.ID)
	}
	return nil
}

func (s *seeder) seedCrew(ctx context.Context) error {
	for _, c := range []cols{
		{"first_name": "Dana", "last_name": "Okafor", "role": "A1 audio engineer", "email": "dana.okafor@crew.example", "phone": "+1 503 555 0101"},
		{"first_name": "Luis", "last_name": "Herrera", "role": "Lighting designer", "email": "luis.herrera@crew.example", "phone": "+1 503 555 0102"},
		{"first_name": "Priya", "last_name": "Raman", "role": "Video engineer", "email": "priya.raman@crew.example"},
		{"first_name": "Tom", "last_name": "Becker", "role": "Head rigger", "email": "tom.becker@crew.example", "notes": "ETCP certified rigger (arena)"},
		{"first_name": "Grace", "last_name": "Kim", "role": "Stage manager", "email": "grace.kim@crew.example", "phone": "+1 206 555 0105"},
		{"first_name": "Marcus", "last_name": "Bell", "role": "CDL driver", "email": "marcus.bell@crew.example", "notes": "Class A CDL; trailer certified"},
	} {
		m, err := crew.Create(ctx, s.tx, s.t, c.changes())
		if err != nil {
			return err
		}
		s.crew = append(s.crew, m.ID)
	}
	return nil
}

// item is one equipment record of the catalogue: case sizes in inches,
// weight in pounds, daily rate in dollars.
type item struct {
	name, brand, model, category string
	stock                        int
	rate                         string
	l, w, h, lbs                 float64
	caseType                     string
}

var categories = []struct{ name, color string }{
	{"Audio", "#1E88E5"},
	{"Lighting", "#FDD835"},
	{"Video", "#8E24AA"},
	{"Staging", "#6D4C41"},
	{"Rigging", "#E53935"},
	{"Power", "#43A047"},
	{"Cases", "#757575"},
}

var catalogueItems = []item{
	{"K2 line array cabinet", "L-Acoustics", "K2", "Audio", 24, "450.00", 53.5, 27.5, 22, 150, "road_case"},
	{"KS28 subwoofer", "L-Acoustics", "KS28", "Audio", 12, "350.00", 53, 36, 30, 220, "road_case"},
	{"V8 line array cabinet", "d&b audiotechnik", "V8", "Audio", 16, "280.00", 44, 22.5, 18, 120, "road_case"},
	{"D80 amplifier rack", "d&b audiotechnik", "D80", "Audio", 8, "150.00", 24, 22, 14, 65, "road_case"},
	{"ULXD4Q quad wireless receiver", "Shure", "ULXD4Q", "Audio", 6, "120.00", 22, 20, 10, 28, "road_case"},
	{"ULXD2/B58 handheld transmitter", "Shure", "ULXD2/B58", "Audio", 24, "45.00", 16, 13, 7, 8, "pelican"},
	{"SD12 mixing console", "DiGiCo", "SD12", "Audio", 2, "650.00", 48, 32, 18, 140, "road_case"},
	{"MAC Aura XB wash (2-pack)", "Martin", "MAC Aura XB", "Lighting", 18, "170.00", 30, 18, 24, 95, "road_case"},
	{"MAC Viper Profile", "Martin", "MAC Viper Profile", "Lighting", 12, "175.00", 32, 24, 36, 130, "road_case"},
	{"Rogue R2X Wash (2-pack)", "Chauvet Professional", "Rogue R2X Wash", "Lighting", 12, "130.00", 30, 18, 22, 85, "road_case"},
	{"Maverick Force 2 Profile", "Chauvet Professional", "Maverick Force 2 Profile", "Lighting", 8, "150.00", 34, 24, 38, 140, "road_case"},
	{"Source Four LED Series 3 Lustr X8", "ETC", "Source Four LED Series 3", "Lighting", 40, "35.00", 28, 12, 14, 25, "soft_case"},
	{"grandMA3 light console", "MA Lighting", "grandMA3 light", "Lighting", 2, "500.00", 50, 34, 16, 120, "road_case"},
	{"UDX-4K32 laser projector", "Barco", "UDX-4K32", "Video", 2, "1200.00", 50, 37, 25, 300, "road_case"},
	{"E2 Gen 2 screen management system", "Barco", "E2 Gen 2", "Video", 1, "900.00", 30, 24, 16, 75, "road_case"},
	{"Black Pearl BP2V2 LED panel (6-pack)", "ROE Visual", "BP2V2", "Video", 20, "240.00", 46, 26, 30, 150, "road_case"},
	{"V-160HD streaming video switcher", "Roland", "V-160HD", "Video", 2, "250.00", 24, 18, 10, 30, "pelican"},
	{"ATEM Constellation 8K switcher", "Blackmagic Design", "ATEM Constellation 8K", "Video", 1, "400.00", 22, 20, 12, 35, "road_case"},
	{"4'x8' stage deck", "StageRight", "Z-Deck 4x8", "Staging", 40, "30.00", 0, 0, 0, 90, ""},
	{"Stage stairs (3-step)", "StageRight", "Adjustable stair unit", "Staging", 6, "25.00", 0, 0, 0, 60, ""},
	{"Lodestar 1-ton chain motor", "CM", "Lodestar 1T", "Rigging", 16, "75.00", 24, 18, 24, 100, "road_case"},
	{"12\" box truss, 10' section", "Tyler Truss", "GT 12in", "Rigging", 40, "25.00", 0, 0, 0, 45, ""},
	{"400A power distribution", "Motion Labs", "400A distro", "Power", 2, "300.00", 36, 24, 30, 250, "road_case"},
	{"Socapex 19-pin cable, 100'", "Whirlwind", "SOCA-100", "Power", 20, "20.00", 20, 20, 12, 40, "soft_case"},
	{"Utility road case with casters", "Anvil", "ATA utility trunk", "Cases", 30, "15.00", 45, 22.5, 30, 85, "road_case"},
	{"Cable trunk", "Anvil", "ATA cable trunk", "Cases", 20, "12.00", 48, 24, 24, 70, "road_case"},
}

func (s *seeder) seedEquipment(ctx context.Context) error {
	byName := map[string]uuid.UUID{}
	for _, c := range categories {
		cat, err := equipment.CreateCategory(ctx, s.tx, s.t, cols{"name": c.name, "color": c.color}.changes())
		if err != nil {
			return err
		}
		byName[c.name] = cat.ID
		s.categories = append(s.categories, cat.ID)
	}
	for i, it := range catalogueItems {
		rate, err := money.Parse(it.rate)
		if err != nil {
			return err
		}
		c := cols{
			"name": it.name, "brand": it.brand, "model": it.model, "category_id": byName[it.category],
			"stock_quantity": it.stock, "daily_rate": rate, "weight_lbs": it.lbs,
			"serial_number": serial(it.brand, i),
		}
		if it.l > 0 {
			c["case_length_in"], c["case_width_in"], c["case_height_in"] = it.l, it.w, it.h
		}
		if it.caseType != "" {
			c["case_type"] = it.caseType
		}
		e, err := equipment.Create(ctx, s.tx, s.t, c.changes())
		if err != nil {
			return err
		}
		s.equipment = append(s.equipment, e.ID)
		if s.equipmentNamed == nil {
			s.equipmentNamed = map[string]uuid.UUID{}
		}
		s.equipmentNamed[it.name] = e.ID
	}
	return nil
}

// serial makes a plausible asset tag: the brand's capitals (or, for a
// lower-case brand such as "d&b audiotechnik", the first letter of each of
// its words, upper-cased), at most three, and a number.
func serial(brand string, i int) string {
	var initials []rune
	for _, r := range brand {
		if r >= 'A' && r <= 'Z' && len(initials) < 3 {
			initials = append(initials, r)
		}
	}
	if len(initials) == 0 {
		for _, w := range strings.Fields(brand) {
			if r := unicode.ToUpper([]rune(w)[0]); r >= 'A' && r <= 'Z' && len(initials) < 3 {
				initials = append(initials, r)
			}
		}
	}
	if len(initials) == 0 {
		initials = []rune("EQ")
	}
	return fmt.Sprintf("%s-%05d", string(initials), 10417+i*37)
}

func (s *seeder) seedVehicles(ctx context.Context) error {
	for _, v := range []cols{
		{"name": "Truck 1", "model": "Freightliner M2 106, 26' box", "vehicle_type": "box_truck", "license_plate": "WA C40121",
			"interior_length_inches": 312, "interior_width_inches": 96, "interior_height_inches": 102, "max_payload_lbs": 10000},
		{"name": "Trailer 1", "model": "Utility 4000D-X, 53' dry van", "vehicle_type": "trailer", "license_plate": "WA 5T88412",
			"interior_length_inches": 630, "interior_width_inches": 101, "interior_height_inches": 110, "max_payload_lbs": 45000},
		{"name": "Sprinter 1", "model": "Mercedes-Benz Sprinter 2500, 170\" high roof", "vehicle_type": "van", "license_plate": "WA CGH2207",
			"interior_length_inches": 176, "interior_width_inches": 70, "interior_height_inches": 79, "max_payload_lbs": 3500},
		{"name": "Truck 2", "model": "Isuzu NRR, 24' box", "vehicle_type": "box_truck", "license_plate": "WA C40388", "status": vehicles.StatusMaintenance,
			"interior_length_inches": 288, "interior_width_inches": 96, "interior_height_inches": 96, "max_payload_lbs": 8000},
	} {
		veh, err := vehicles.Create(ctx, s.tx, s.t, v.changes())
		if err != nil {
			return err
		}
		s.vehicles = append(s.vehicles, veh.ID)
		if veh.Status == vehicles.StatusAvailable {
			s.availableVehicles = append(s.availableVehicles, veh.ID)
		}
	}
	return nil
}

// seedEvents seeds one event per status, each for one of the seeded
// clients: first the confirmed gala three weeks out (the event the bookings
// step reserves, quotes and packs), then the summit in progress, the
// tentative awards show, the inquiry three months out, and last the festival
// completed three weeks ago.
func (s *seeder) seedEvents(ctx context.Context) error {
	for _, e := range demoEvents(time.Now()) {
		ev, err := events.Create(ctx, s.tx, s.t, cols{
			"name": e.name, "status": e.status, "venue": e.venue, "description": e.description,
			"start_date": e.start, "end_date": e.end, "client_id": s.clients[e.client%len(s.clients)],
		}.changes())
		if err != nil {
			return err
		}
		s.events = append(s.events, ev.ID)
	}
	return nil
}

// demoEvent is one event seedEvents makes; client indexes the seeded clients.
type demoEvent struct {
	name, status, venue, description string
	client                           int
	start, end                       time.Time
}

// demoEvents are the events seedEvents makes at now, in its order.
func demoEvents(now time.Time) []demoEvent {
	day := now.UTC().Truncate(24 * time.Hour)
	at := func(days, hour int) time.Time { return day.AddDate(0, 0, days).Add(time.Duration(hour) * time.Hour) }
	return []demoEvent{
		{"Northwind Annual Gala", events.StatusConfirmed, "Tacoma Dome Exhibition Hall", "Dinner for 800, band and LED wall",
			2, at(21, 16), at(22, 1)},
		{"Meridian Tech Summit", events.StatusInProgress, "Meridian Conference Center, Hall A", "Keynote plus six breakout rooms",
			1, at(-1, 8), at(2, 18)},
		{"Cascade Music Awards", events.StatusTentative, "Paramount Theatre, Seattle", "Broadcast show with IMAG",
			3, at(60, 12), at(61, 23)},
		{"Evergreen Robotics Product Launch", events.StatusInquiry, "Bell Harbor International Conference Center",
			"Reveal with projection mapping", 4, at(90, 9), at(90, 21)},
		{"Harbor Lights Festival", events.StatusCompleted, "Tom McCall Waterfront Park, Portland", "Main stage and two side stages",
			0, at(-23, 14), at(-21, 23)},
	}
}

func sortedKeys(c cols) []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
