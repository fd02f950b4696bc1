-- CreateTable
CREATE TABLE "LeadCounter" (
    "tenantId" UUID NOT NULL,
    "botKey" UUID NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "LeadCounter_pkey" PRIMARY KEY ("tenantId","botKey")
);

-- AddForeignKey
ALTER TABLE "LeadCounter" ADD CONSTRAINT "LeadCounter_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The counters follow the leads in the same transaction, whatever writes them (the API, a
-- conversation, a bot's deletion setting botId to null, the admin API, bulk loads, manual fixes).
-- One row per (tenant, bot) rather than one per tenant: concurrent leads of different bots do not
-- wait for each other's counter. A decrement is a plain UPDATE: a row already removed by a
-- tenant's cascading deletion stays removed.
CREATE FUNCTION "count_leads"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD."tenantId" = NEW."tenantId" AND OLD."botId" IS NOT DISTINCT FROM NEW."botId" THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE "LeadCounter" SET "count" = "count" - 1
      WHERE "tenantId" = OLD."tenantId" AND "botKey" = COALESCE(OLD."botId", '00000000-0000-0000-0000-000000000000');
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "LeadCounter" ("tenantId", "botKey", "count")
      VALUES (NEW."tenantId", COALESCE(NEW."botId", '00000000-0000-0000-0000-000000000000'), 1)
      ON CONFLICT ("tenantId", "botKey") DO UPDATE SET "count" = "LeadCounter"."count" + 1;
  END IF;
  RETURN NULL;
END $$;

-- Creating the trigger locks out writes to Lead until this migration commits, so the backfill
-- below counts exactly the rows the trigger will not see.
CREATE TRIGGER "Lead_count" AFTER INSERT OR DELETE OR UPDATE OF "tenantId", "botId" ON "Lead"
  FOR EACH ROW EXECUTE FUNCTION "count_leads"();

INSERT INTO "LeadCounter" ("tenantId", "botKey", "count")
  SELECT "tenantId", COALESCE("botId", '00000000-0000-0000-0000-000000000000'), count(*)::int FROM "Lead" GROUP BY 1, 2;
