-- One trigram index serves `search`, on searchText (20261122070000_lead_search_text_column). The
-- tenant leads it (btree_gin), so a search reads only the tenant's matches. Building it holds off
-- writes to Lead (about 10 s for 1,000,000 leads); reads go on.

-- CreateIndex
CREATE INDEX "Lead_tenantId_searchText_trgm_idx" ON "Lead" USING GIN ("tenantId" uuid_ops, "searchText" gin_trgm_ops);

-- Dropped last: DROP INDEX locks out reads of Lead until the migration commits, which is then at
-- once.
DROP INDEX "Lead_tenantId_company_trgm_idx";
DROP INDEX "Lead_tenantId_email_trgm_idx";
DROP INDEX "Lead_tenantId_name_trgm_idx";
