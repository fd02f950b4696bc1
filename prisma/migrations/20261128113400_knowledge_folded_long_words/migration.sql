-- A passage's folded words leave out words of 2,046 bytes and more (issue 32): to_tsvector keeps a
-- word of up to 2,047 bytes (the embedded database: 2,046), and with its '~' mark it was past what
-- a lexeme may be, so a document holding one (passages cut words at 800 characters: 511 four-byte
-- letters and two or three ASCII ones, say) was refused with a 500 ("word is too long"). Such a
-- word stays out of the folded match only; no existing passage holds one (its write failed).
CREATE OR REPLACE FUNCTION knowledge_folded_words(title text, content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_to_tsvector(coalesce(array_agg(DISTINCT '~' || word), '{}'))
  FROM unnest(tsvector_to_array(to_tsvector('simple', knowledge_fold(title || ' ' || content)))) AS word
  WHERE octet_length(word) < 2046
$$;
