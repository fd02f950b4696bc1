-- `search` matches one column instead of three: name, e-mail and company joined by newlines, with
-- ASCII letters lowered. A search then reads one trigram index instead of three, an ASCII term is
-- compared with LIKE (bytes) instead of ILIKE (which lowers every candidate row in full), and an
-- insert updates one GIN index instead of three. Measured on 1,070,000 leads with pgbench (4
-- clients): a broad search's count and first page in a 200,000-lead tenant, 85-104 -> 146-204 per
-- second; single-row inserts, 3,536 -> 4,232-4,356 per second.
-- Three migrations, each one transaction, so that reads of Lead never wait long:
-- 1. this one adds the column and the trigger that keeps it: ADD COLUMN locks Lead out entirely,
--    but only for a moment (a nullable column without a default is not written into the rows);
-- 2. the backfill updates the existing leads: reads and inserts go on, updates of those leads
--    wait (about 90 s per million leads on 2 cores);
-- 3. the index is built (writes wait, ~10 s per million leads, reads go on) and the three
--    per-field indexes are dropped.
-- A trigger, not a generated column: adding a stored generated column rewrites the table under
-- that exclusive lock (19 s for 1,000,000 leads, reads included).

-- AlterTable
ALTER TABLE "Lead" ADD COLUMN "searchText" TEXT;

-- COLLATE "C": lower() then changes A-Z only, whatever the database's locale, so the service can
-- lower an ASCII term exactly as the column was lowered. İ and the Kelvin sign are the only
-- letters a UTF-8 locale lowers to ASCII (i and k): translated first, an ASCII term still finds
-- them as ILIKE did.
CREATE FUNCTION "lead_search_text"(name TEXT, email TEXT, company TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT lower(translate(name || E'\n' || email || E'\n' || coalesce(company, ''), U&'\0130\212A', 'ik') COLLATE "C")
$$;

CREATE FUNCTION "set_lead_search_text"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."searchText" := "lead_search_text"(NEW."name", NEW."email", NEW."company");
  RETURN NEW;
END $$;

-- Every insert and update, whichever columns it names, so that nothing can write the column out of
-- step with the fields.
CREATE TRIGGER "Lead_search_text" BEFORE INSERT OR UPDATE ON "Lead"
  FOR EACH ROW EXECUTE FUNCTION "set_lead_search_text"();
