-- A bot's knowledge version (issue 27): bumped whenever its passages change, by whatever path
-- (documents written or deleted, a language change re-indexing them), so that what is derived from
-- the passages, such as each question word's document frequency, can be kept in memory and known
-- stale by the bot row every question reads anyway.
ALTER TABLE "Bot" ADD COLUMN "knowledgeVersion" INTEGER NOT NULL DEFAULT 0;

-- Statement-level: a document of 20 passages bumps its bot once.
CREATE FUNCTION knowledge_chunk_bump_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "Bot" SET "knowledgeVersion" = "knowledgeVersion" + 1
  WHERE "id" IN (SELECT "botId" FROM changed_chunks);
  RETURN NULL;
END $$;

CREATE TRIGGER "KnowledgeChunk_version_insert" AFTER INSERT ON "KnowledgeChunk"
  REFERENCING NEW TABLE AS changed_chunks FOR EACH STATEMENT EXECUTE FUNCTION knowledge_chunk_bump_version();
CREATE TRIGGER "KnowledgeChunk_version_update" AFTER UPDATE ON "KnowledgeChunk"
  REFERENCING NEW TABLE AS changed_chunks FOR EACH STATEMENT EXECUTE FUNCTION knowledge_chunk_bump_version();
CREATE TRIGGER "KnowledgeChunk_version_delete" AFTER DELETE ON "KnowledgeChunk"
  REFERENCING OLD TABLE AS changed_chunks FOR EACH STATEMENT EXECUTE FUNCTION knowledge_chunk_bump_version();

-- Questions read the passages' index far more often than documents are written: GIN's pending
-- list (fastupdate) makes writes cheaper but every search scans the list linearly until VACUUM
-- merges it (a bitmap of 10,000 passages took 33 ms with the list full, 7.6 ms without). Written
-- straight into the index instead; the list there now is merged once.
ALTER INDEX "KnowledgeChunk_botId_searchVector_idx" SET (fastupdate = off);
SELECT gin_clean_pending_list('"KnowledgeChunk_botId_searchVector_idx"'::regclass);
