-- Knowledge search: the text-search configuration of a bot's language, the chunks of the
-- documents that existed before chunks did, and chunks that follow their bot's language.

-- The PostgreSQL text-search configuration for an ISO 639-1 language (the stemmers PostgreSQL 15+
-- and the embedded database both ship); `simple` (no stemming, no stop words) for any other.
-- The one place the mapping lives: chunks are written and questions parsed with it.
CREATE FUNCTION knowledge_search_config(language text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (CASE lower(language)
    WHEN 'ar' THEN 'arabic' WHEN 'hy' THEN 'armenian' WHEN 'eu' THEN 'basque' WHEN 'ca' THEN 'catalan'
    WHEN 'da' THEN 'danish' WHEN 'nl' THEN 'dutch' WHEN 'en' THEN 'english' WHEN 'fi' THEN 'finnish'
    WHEN 'fr' THEN 'french' WHEN 'de' THEN 'german' WHEN 'el' THEN 'greek' WHEN 'hi' THEN 'hindi'
    WHEN 'hu' THEN 'hungarian' WHEN 'id' THEN 'indonesian' WHEN 'ga' THEN 'irish' WHEN 'it' THEN 'italian'
    WHEN 'lt' THEN 'lithuanian' WHEN 'ne' THEN 'nepali' WHEN 'no' THEN 'norwegian' WHEN 'nb' THEN 'norwegian'
    WHEN 'nn' THEN 'norwegian' WHEN 'pt' THEN 'portuguese' WHEN 'ro' THEN 'romanian' WHEN 'ru' THEN 'russian'
    WHEN 'sr' THEN 'serbian' WHEN 'es' THEN 'spanish' WHEN 'sv' THEN 'swedish' WHEN 'ta' THEN 'tamil'
    WHEN 'tr' THEN 'turkish' WHEN 'yi' THEN 'yiddish'
    ELSE 'simple' END)::regconfig
$$;

-- A chunk's vector: the document's title (weight A) and the chunk's text, in the bot's language.
CREATE FUNCTION knowledge_chunk_vector(language text, title text, content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector(knowledge_search_config(language), title), 'A') || to_tsvector(knowledge_search_config(language), content)
$$;

-- The documents written before chunks existed: one chunk per paragraph (blank-line separated).
INSERT INTO "KnowledgeChunk" ("id", "tenantId", "botId", "documentId", "position", "content", "searchVector")
SELECT gen_random_uuid(), d."tenantId", d."botId", d."id", (p.n - 1)::int, btrim(p.content), knowledge_chunk_vector(b."language", d."title", p.content)
FROM "KnowledgeDocument" d
JOIN "Bot" b ON b."id" = d."botId"
CROSS JOIN LATERAL regexp_split_to_table(d."content", E'\\n[ \\t]*\\n') WITH ORDINALITY AS p(content, n)
WHERE btrim(p.content) <> '';

-- A bot whose language changes gets its chunks in the new language, in the same transaction,
-- whatever path changed it.
CREATE FUNCTION "Bot_language_reindex"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "KnowledgeChunk" c SET "searchVector" = knowledge_chunk_vector(NEW."language", d."title", c."content")
  FROM "KnowledgeDocument" d
  WHERE c."botId" = NEW."id" AND d."id" = c."documentId";
  RETURN NULL;
END;
$$;

CREATE TRIGGER "Bot_language_reindex" AFTER UPDATE OF "language" ON "Bot"
FOR EACH ROW WHEN (OLD."language" IS DISTINCT FROM NEW."language") EXECUTE FUNCTION "Bot_language_reindex"();
