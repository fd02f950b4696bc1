-- `search` matches one column instead of three: name, e-mail and company joined by newlines, with
-- ASCII letters lowered. A search then reads one trigram index instead of three, an ASCII term is
-- compared with LIKE (bytes) instead of ILIKE (which lowers every candidate row in full), and an
-- insert updates one GIN index instead of three. Measured on 1,070,000 leads with pgbench (4
-- clients): a broad search's count and first page in a 200,000-lead tenant, 85-104 -> 146-204 per
-- second; single-row inserts, 3,536 -> 4,232-4,356 per second.
-- A trigger keeps the column, not a generated column: adding a stored generated column rewrites
-- the table and locks out reads (19 s for 1,000,000 leads). Here reads go on throughout; writes
-- to Lead wait from the trigger's creation until the migration commits (73 s for 1,070,000 leads
-- on 2 cores), so that no row escapes both the trigger and the backfill.

-- AlterTable
ALTER TABLE "Lead" ADD COLUMN "searchText" TEXT;

-- COLLATE "C": lower() then changes A-Z only, whatever the database's locale, so the service can
-- lower an ASCII term exactly as the column was lowered.
CREATE FUNCTION "lead_search_text"(name TEXT, email TEXT, company TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT lower((name || E'\n' || email || E'\n' || coalesce(company, '')) COLLATE "C")
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

-- The existing leads (the trigger sets the column; the lead counters' trigger does not fire).
UPDATE "Lead" SET "searchText" = "lead_search_text"("name", "email", "company");

-- CreateIndex
CREATE INDEX "Lead_tenantId_searchText_trgm_idx" ON "Lead" USING GIN ("tenantId" uuid_ops, "searchText" gin_trgm_ops);

-- Dropped last: DROP INDEX locks out reads of Lead until the migration commits, which is then at
-- once.
DROP INDEX "Lead_tenantId_company_trgm_idx";
DROP INDEX "Lead_tenantId_email_trgm_idx";
DROP INDEX "Lead_tenantId_name_trgm_idx";
