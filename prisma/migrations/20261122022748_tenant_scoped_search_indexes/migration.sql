-- The search indexes lead with the tenant: btree_gin gives GIN an operator class for uuid.
-- Building the indexes holds off writes to Lead (about 10 s for 1,000,000 leads); reads go on.
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- CreateIndex
CREATE INDEX "Lead_tenantId_name_trgm_idx" ON "Lead" USING GIN ("tenantId" uuid_ops, "name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Lead_tenantId_email_trgm_idx" ON "Lead" USING GIN ("tenantId" uuid_ops, "email" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Lead_tenantId_company_trgm_idx" ON "Lead" USING GIN ("tenantId" uuid_ops, "company" gin_trgm_ops);

-- Dropped last: DROP INDEX locks out reads of Lead until the migration commits, which is then at
-- once, whereas building the new indexes holds off writes only.
DROP INDEX "Lead_company_trgm_idx";
DROP INDEX "Lead_email_trgm_idx";
DROP INDEX "Lead_name_trgm_idx";
