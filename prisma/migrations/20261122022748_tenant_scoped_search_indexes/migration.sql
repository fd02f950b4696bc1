-- The search indexes lead with the tenant: btree_gin gives GIN an operator class for uuid.
-- CREATE INDEX holds off writes to Lead while it builds (about 10 s for 1,000,000 leads).
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- DropIndex
DROP INDEX "Lead_company_trgm_idx";

-- DropIndex
DROP INDEX "Lead_email_trgm_idx";

-- DropIndex
DROP INDEX "Lead_name_trgm_idx";

-- CreateIndex
CREATE INDEX "Lead_tenantId_name_trgm_idx" ON "Lead" USING GIN ("tenantId" uuid_ops, "name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Lead_tenantId_email_trgm_idx" ON "Lead" USING GIN ("tenantId" uuid_ops, "email" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Lead_tenantId_company_trgm_idx" ON "Lead" USING GIN ("tenantId" uuid_ops, "company" gin_trgm_ops);
