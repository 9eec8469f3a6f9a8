DO $$
DECLARE
    listed regclass;
BEGIN
    FOR listed IN SELECT tgrelid::regclass FROM pg_trigger WHERE tgname = 'list_position' LOOP
        EXECUTE format('DROP TRIGGER list_position ON %s', listed);
    END LOOP;
END
$$;
DROP FUNCTION list_position();
