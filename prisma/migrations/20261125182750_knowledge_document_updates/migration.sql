-- Knowledge documents become editable through the API (API_DECISIONS, part 3): each carries the
-- time of its last change and its length in characters (Unicode code points: char_length on a
-- UTF-8 database), so that lists need not read the content. Existing rows: updatedAt = createdAt.
ALTER TABLE "KnowledgeDocument" ADD COLUMN "characters" INTEGER,
ADD COLUMN "updatedAt" TIMESTAMPTZ(3);

UPDATE "KnowledgeDocument" SET "characters" = char_length("content"), "updatedAt" = "createdAt";

ALTER TABLE "KnowledgeDocument" ALTER COLUMN "characters" SET NOT NULL,
ALTER COLUMN "updatedAt" SET NOT NULL;

-- A bot's documents are listed newest first; this index serves that order (read backwards).
DROP INDEX "KnowledgeDocument_botId_idx";
CREATE INDEX "KnowledgeDocument_botId_createdAt_id_idx" ON "KnowledgeDocument"("botId", "createdAt", "id");
