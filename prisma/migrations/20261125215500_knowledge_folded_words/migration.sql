-- A second match, on the words as written with their accents folded (issue 28): word forms the
-- stemmer splits ("delivered" 'deliv', "delivery" 'deliveri') still meet through a prefix of the
-- visitor's word, and "Kuhlschrank" meets "Kühlschrank". Plain SQL (translate, array_to_tsvector):
-- the embedded database has no unaccent extension to rely on.

-- Lower case, accents removed, ß/æ/œ spelled out: the one folding, used for passages and questions.
CREATE FUNCTION knowledge_fold(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT translate(
    replace(replace(replace(lower(value), 'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'),
    'àáâãäåāăąçćĉčďèéêëēĕėęěĝğġģĥìíîïĩīĭįĵķĺļľñńņňòóôõöōŏőŕŗřśŝşšţťùúûüũūŭůűųŵýÿŷźżžđłøı',
    'aaaaaaaaaccccdeeeeeeeeegggghiiiiiiiijklllnnnnoooooooorrrssssttuuuuuuuuuuwyyyzzzdloi'
  )
$$;

-- A passage's words as written and folded, as position-less lexemes marked '~' (a character no
-- text-search parser leaves in a lexeme), so that they never meet a stemmed query term and do not
-- count in ts_rank.
CREATE FUNCTION knowledge_folded_words(title text, content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_to_tsvector(coalesce(array_agg(DISTINCT '~' || word), '{}'))
  FROM unnest(tsvector_to_array(to_tsvector('simple', knowledge_fold(title || ' ' || content)))) AS word
$$;

-- A question word's folded match: the word (folded), or with a trailing '*' any word it begins.
CREATE FUNCTION knowledge_folded_query(word text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (quote_literal('~' || knowledge_fold(rtrim(word, '*'))) || CASE WHEN word LIKE '%*' THEN ':*' ELSE '' END)::tsquery
$$;

CREATE OR REPLACE FUNCTION knowledge_chunk_vector(language text, title text, content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector(knowledge_search_config(language), title), 'A') || to_tsvector(knowledge_search_config(language), content)
    || knowledge_folded_words(title, content)
$$;

UPDATE "KnowledgeChunk" c SET "searchVector" = knowledge_chunk_vector(b."language", d."title", c."content")
FROM "KnowledgeDocument" d JOIN "Bot" b ON b."id" = d."botId"
WHERE d."id" = c."documentId";
