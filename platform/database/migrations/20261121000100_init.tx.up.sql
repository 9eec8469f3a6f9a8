-- eventapi schema. Every tenant-owned table carries organization_id, and every
-- reference between tenant rows is a composite foreign key on
-- (organization_id, id), so the database itself refuses a cross-tenant link.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE organizations (
    id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name                  text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    stock_guard_mode      text NOT NULL DEFAULT 'block' CHECK (stock_guard_mode IN ('block', 'warn', 'off')),
    rate_limit_per_window integer CHECK (rate_limit_per_window > 0),
    sandbox_of            uuid UNIQUE REFERENCES organizations (id) ON DELETE CASCADE,
    created_at            timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at            timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE api_keys (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    prefix          text NOT NULL,
    hash            bytea NOT NULL UNIQUE,
    scopes          text[] NOT NULL DEFAULT '{}',
    mode            text NOT NULL CHECK (mode IN ('live', 'test', 'legacy')),
    expires_at      timestamptz,
    revoked_at      timestamptz,
    last_used_at    timestamptz,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX api_keys_organization_idx ON api_keys (organization_id, created_at, id);

-- Shared secrets of the service (for example the cursor MAC key), created on
-- first start so that every pod signs and verifies with the same key.
CREATE TABLE service_secrets (
    name       text PRIMARY KEY,
    value      bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE clients (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    email           text,
    phone           text,
    address         text,
    city            text,
    state           text,
    zip             text,
    notes           text,
    demo            boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id)
);
CREATE INDEX clients_page_idx ON clients (organization_id, created_at, id);
CREATE INDEX clients_search_idx ON clients USING gin ((lower(name || ' ' || coalesce(email, ''))) gin_trgm_ops);

CREATE TABLE events (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    status          text NOT NULL DEFAULT 'inquiry'
                    CHECK (status IN ('inquiry', 'tentative', 'confirmed', 'in_progress', 'completed', 'cancelled')),
    start_date      timestamptz NOT NULL,
    end_date        timestamptz NOT NULL,
    venue           text NOT NULL,
    client_id       uuid,
    description     text,
    notes           text,
    demo            boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id),
    CONSTRAINT events_dates_check CHECK (end_date > start_date),
    CONSTRAINT events_client_id_fkey FOREIGN KEY (organization_id, client_id)
        REFERENCES clients (organization_id, id) ON DELETE SET NULL (client_id)
);
CREATE INDEX events_page_idx ON events (organization_id, created_at, id);
CREATE INDEX events_status_idx ON events (organization_id, status, created_at, id);

CREATE TABLE crew_members (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    first_name      text NOT NULL,
    last_name       text NOT NULL,
    email           text,
    phone           text,
    role            text,
    notes           text,
    is_active       boolean NOT NULL DEFAULT true,
    demo            boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id)
);
CREATE INDEX crew_members_page_idx ON crew_members (organization_id, created_at, id);
CREATE INDEX crew_members_name_idx ON crew_members (organization_id, last_name, first_name, id);

CREATE TABLE equipment_categories (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    color           text CHECK (color ~ '^#[0-9A-Fa-f]{6}$'),
    demo            boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id)
);
CREATE UNIQUE INDEX equipment_categories_name_key ON equipment_categories (organization_id, lower(name));
CREATE INDEX equipment_categories_page_idx ON equipment_categories (organization_id, created_at, id);

CREATE TABLE equipment (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    brand           text,
    model           text,
    serial_number   text,
    category_id     uuid,
    stock_quantity  integer CHECK (stock_quantity >= 0),
    daily_rate      numeric(12, 2) CHECK (daily_rate >= 0),
    case_length_in  double precision CHECK (case_length_in > 0),
    case_width_in   double precision CHECK (case_width_in > 0),
    case_height_in  double precision CHECK (case_height_in > 0),
    weight_lbs      double precision CHECK (weight_lbs > 0),
    case_type       text CHECK (case_type IN ('road_case', 'soft_case', 'pelican')),
    status          text NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'on_job', 'maintenance', 'retired')),
    demo            boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id),
    CONSTRAINT equipment_category_id_fkey FOREIGN KEY (organization_id, category_id)
        REFERENCES equipment_categories (organization_id, id) ON DELETE SET NULL (category_id)
);
CREATE INDEX equipment_page_idx ON equipment (organization_id, created_at, id);
CREATE INDEX equipment_category_idx ON equipment (organization_id, category_id, created_at, id);
CREATE INDEX equipment_name_idx ON equipment (organization_id, name, id);

CREATE TABLE vehicles (
    id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id        uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name                   text NOT NULL,
    model                  text,
    license_plate          text,
    vehicle_type           text,
    status                 text NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'in_use', 'maintenance', 'retired')),
    interior_length_inches integer CHECK (interior_length_inches > 0),
    interior_width_inches  integer CHECK (interior_width_inches > 0),
    interior_height_inches integer CHECK (interior_height_inches > 0),
    max_payload_lbs        integer CHECK (max_payload_lbs > 0),
    demo                   boolean NOT NULL DEFAULT false,
    created_at             timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at             timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id)
);
CREATE INDEX vehicles_page_idx ON vehicles (organization_id, status, created_at, id);

CREATE TABLE equipment_reservations (
    id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id         uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    equipment_id            uuid NOT NULL,
    event_id                uuid,
    vehicle_id              uuid,
    truck_position          text CHECK (length(truck_position) <= 120),
    start_date              timestamptz NOT NULL,
    end_date                timestamptz NOT NULL,
    quantity                integer NOT NULL DEFAULT 1 CHECK (quantity >= 1),
    reservation_status      text NOT NULL DEFAULT 'reserved'
                            CHECK (reservation_status IN ('reserved', 'checked_out', 'returned', 'cancelled')),
    notes                   text,
    overbooked              boolean NOT NULL DEFAULT false,
    overbook_reason         text,
    overbook_cost_ownership text CHECK (overbook_cost_ownership IN ('new_customer', 'original_customer', 'absorbed')),
    demo                    boolean NOT NULL DEFAULT false,
    created_at              timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at              timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id),
    CONSTRAINT equipment_reservations_dates_check CHECK (end_date > start_date),
    CONSTRAINT equipment_reservations_equipment_id_fkey FOREIGN KEY (organization_id, equipment_id)
        REFERENCES equipment (organization_id, id) ON DELETE CASCADE,
    CONSTRAINT equipment_reservations_event_id_fkey FOREIGN KEY (organization_id, event_id)
        REFERENCES events (organization_id, id) ON DELETE CASCADE,
    CONSTRAINT equipment_reservations_vehicle_id_fkey FOREIGN KEY (organization_id, vehicle_id)
        REFERENCES vehicles (organization_id, id) ON DELETE SET NULL (vehicle_id)
);
CREATE INDEX equipment_reservations_page_idx ON equipment_reservations (organization_id, created_at, id);
CREATE INDEX equipment_reservations_stock_idx ON equipment_reservations (organization_id, equipment_id, start_date, end_date)
    WHERE reservation_status IN ('reserved', 'checked_out');
CREATE UNIQUE INDEX equipment_reservations_event_equipment_key ON equipment_reservations (organization_id, equipment_id, event_id)
    WHERE event_id IS NOT NULL AND reservation_status <> 'cancelled';

-- Gap-free per-organization document numbers (Q-000001, INV-000001).
CREATE TABLE number_counters (
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    kind            text NOT NULL CHECK (kind IN ('quote', 'invoice')),
    last_value      bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (organization_id, kind)
);

CREATE TABLE quotes (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    quote_number    text NOT NULL,
    title           text NOT NULL,
    status          text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'sent', 'approved', 'declined', 'cancelled')),
    total_amount    numeric(14, 2) NOT NULL DEFAULT 0,
    client_id       uuid,
    event_id        uuid,
    notes           text,
    internal_notes  text,
    quote_type      text NOT NULL DEFAULT 'rental',
    demo            boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id),
    CONSTRAINT quotes_quote_number_key UNIQUE (organization_id, quote_number),
    CONSTRAINT quotes_client_id_fkey FOREIGN KEY (organization_id, client_id)
        REFERENCES clients (organization_id, id) ON DELETE SET NULL (client_id),
    CONSTRAINT quotes_event_id_fkey FOREIGN KEY (organization_id, event_id)
        REFERENCES events (organization_id, id) ON DELETE SET NULL (event_id)
);
CREATE INDEX quotes_page_idx ON quotes (organization_id, created_at, id);

CREATE TABLE quote_line_items (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    quote_id        uuid NOT NULL,
    position        integer NOT NULL,
    equipment_id    uuid,
    description     text NOT NULL DEFAULT '',
    quantity        integer NOT NULL CHECK (quantity >= 1),
    unit_price      numeric(12, 2) NOT NULL CHECK (unit_price >= 0),
    line_total      numeric(14, 2) NOT NULL,
    CONSTRAINT quote_line_items_quote_id_fkey FOREIGN KEY (organization_id, quote_id)
        REFERENCES quotes (organization_id, id) ON DELETE CASCADE,
    CONSTRAINT quote_line_items_equipment_id_fkey FOREIGN KEY (organization_id, equipment_id)
        REFERENCES equipment (organization_id, id) ON DELETE SET NULL (equipment_id)
);
CREATE INDEX quote_line_items_quote_idx ON quote_line_items (organization_id, quote_id, position);

CREATE TABLE invoices (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    invoice_number  text NOT NULL,
    title           text NOT NULL DEFAULT '',
    status          text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'sent', 'paid', 'void')),
    total_amount    numeric(14, 2) NOT NULL DEFAULT 0,
    client_id       uuid,
    event_id        uuid,
    issue_date      date,
    due_date        date NOT NULL,
    notes           text,
    demo            boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id),
    CONSTRAINT invoices_invoice_number_key UNIQUE (organization_id, invoice_number),
    CONSTRAINT invoices_client_id_fkey FOREIGN KEY (organization_id, client_id)
        REFERENCES clients (organization_id, id) ON DELETE SET NULL (client_id),
    CONSTRAINT invoices_event_id_fkey FOREIGN KEY (organization_id, event_id)
        REFERENCES events (organization_id, id) ON DELETE SET NULL (event_id)
);
CREATE INDEX invoices_page_idx ON invoices (organization_id, created_at, id);

CREATE TABLE invoice_line_items (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    invoice_id      uuid NOT NULL,
    position        integer NOT NULL,
    equipment_id    uuid,
    description     text NOT NULL DEFAULT '',
    quantity        integer NOT NULL CHECK (quantity >= 1),
    unit_price      numeric(12, 2) NOT NULL CHECK (unit_price >= 0),
    line_total      numeric(14, 2) NOT NULL,
    CONSTRAINT invoice_line_items_invoice_id_fkey FOREIGN KEY (organization_id, invoice_id)
        REFERENCES invoices (organization_id, id) ON DELETE CASCADE,
    CONSTRAINT invoice_line_items_equipment_id_fkey FOREIGN KEY (organization_id, equipment_id)
        REFERENCES equipment (organization_id, id) ON DELETE SET NULL (equipment_id)
);
CREATE INDEX invoice_line_items_invoice_idx ON invoice_line_items (organization_id, invoice_id, position);

CREATE TABLE pick_lists (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    status          text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'in_progress', 'packed', 'complete')),
    event_id        uuid,
    quote_id        uuid,
    archived        boolean NOT NULL DEFAULT false,
    notes           text,
    demo            boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id),
    CONSTRAINT pick_lists_event_id_fkey FOREIGN KEY (organization_id, event_id)
        REFERENCES events (organization_id, id) ON DELETE SET NULL (event_id),
    CONSTRAINT pick_lists_quote_id_fkey FOREIGN KEY (organization_id, quote_id)
        REFERENCES quotes (organization_id, id) ON DELETE SET NULL (quote_id)
);
CREATE UNIQUE INDEX pick_lists_quote_id_key ON pick_lists (organization_id, quote_id) WHERE quote_id IS NOT NULL;
CREATE INDEX pick_lists_page_idx ON pick_lists (organization_id, archived, created_at, id);

CREATE TABLE pick_list_items (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id    uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    pick_list_id       uuid NOT NULL,
    equipment_id       uuid,
    quantity           integer NOT NULL DEFAULT 1 CHECK (quantity >= 1),
    stage              text NOT NULL DEFAULT 'pending'
                       CHECK (stage IN ('pending', 'checked', 'staged', 'loaded', 'installing', 'installed')),
    notes              text,
    custom_description text,
    is_container       boolean,
    container_id       uuid,
    is_package         boolean,
    parent_item_id     uuid,
    serial_numbers     text[],
    warehouse_id       uuid,
    demo               boolean NOT NULL DEFAULT false,
    created_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id),
    CONSTRAINT pick_list_items_what_check CHECK (equipment_id IS NOT NULL OR custom_description IS NOT NULL),
    CONSTRAINT pick_list_items_pick_list_id_fkey FOREIGN KEY (organization_id, pick_list_id)
        REFERENCES pick_lists (organization_id, id) ON DELETE CASCADE,
    CONSTRAINT pick_list_items_equipment_id_fkey FOREIGN KEY (organization_id, equipment_id)
        REFERENCES equipment (organization_id, id) ON DELETE SET NULL (equipment_id),
    CONSTRAINT pick_list_items_parent_item_id_fkey FOREIGN KEY (organization_id, parent_item_id)
        REFERENCES pick_list_items (organization_id, id) ON DELETE SET NULL (parent_item_id)
);
CREATE INDEX pick_list_items_list_idx ON pick_list_items (organization_id, pick_list_id, created_at, id);
