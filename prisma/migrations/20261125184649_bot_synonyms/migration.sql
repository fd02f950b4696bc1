-- AlterTable
ALTER TABLE "Bot" ADD COLUMN     "synonyms" TEXT[] DEFAULT ARRAY[]::TEXT[];
