-- CreateTable
CREATE TABLE "KnowledgeChunkEmbedding" (
    "chunkId" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "botId" UUID NOT NULL,
    "model" TEXT,
    "vector" REAL[],
    "embeddedAt" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KnowledgeChunkEmbedding_pkey" PRIMARY KEY ("chunkId")
);

-- CreateIndex
CREATE INDEX "KnowledgeChunkEmbedding_tenantId_botId_idx" ON "KnowledgeChunkEmbedding"("tenantId", "botId");

-- CreateIndex
CREATE INDEX "KnowledgeChunkEmbedding_nextAttemptAt_idx" ON "KnowledgeChunkEmbedding"("nextAttemptAt");

-- CreateIndex
CREATE INDEX "KnowledgeChunkEmbedding_tenantId_nextAttemptAt_idx" ON "KnowledgeChunkEmbedding"("tenantId", "nextAttemptAt");

-- AddForeignKey
ALTER TABLE "KnowledgeChunkEmbedding" ADD CONSTRAINT "KnowledgeChunkEmbedding_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "KnowledgeChunk"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every passage is queued for embedding as it is written, in its own statement's transaction: the
-- worker finds work on the nextAttemptAt index instead of comparing the two tables, and a changed
-- document (its passages deleted and written again) is re-embedded without the code asking for it.
-- Rows wait harmlessly while no embeddings endpoint is configured. One statement-level trigger:
-- a document's passages are inserted by one statement.
CREATE FUNCTION knowledge_chunk_embedding_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "KnowledgeChunkEmbedding" ("chunkId", "tenantId", "botId")
  SELECT n."id", n."tenantId", n."botId" FROM new_chunks n;
  RETURN NULL;
END $$;

CREATE TRIGGER "KnowledgeChunk_embedding_queue" AFTER INSERT ON "KnowledgeChunk"
  REFERENCING NEW TABLE AS new_chunks FOR EACH STATEMENT EXECUTE FUNCTION knowledge_chunk_embedding_queue();

-- The passages written before this migration wait for the worker too.
INSERT INTO "KnowledgeChunkEmbedding" ("chunkId", "tenantId", "botId")
SELECT c."id", c."tenantId", c."botId" FROM "KnowledgeChunk" c;
