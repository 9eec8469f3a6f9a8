-- The identity of this database (docs/operator.md, "One database per
-- object"): a uuid drawn once, here, when the migration runs. The operator
-- reads it at start and claims each ApiKey and SandboxOrganization for it
-- (the annotation eventapi.io/database), so that the operator of another
-- database, watching the same namespaces, leaves the object alone. The row
-- is data: a dump carries it, so a database restored from another's dump
-- has the same identity until it is given a new one (docs/operator.md).
-- One row, its key always true, as feed_cluster.
CREATE TABLE installation_identity (
    only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    id         uuid NOT NULL DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
INSERT INTO installation_identity DEFAULT VALUES;
