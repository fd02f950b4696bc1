-- OR of text-search queries, as an aggregate: a question's terms (its words and their synonyms,
-- each a phrase query in the bot's language) are combined without printing and re-parsing them,
-- which would split a hyphenated lexeme such as 'pre-ord' again.
CREATE AGGREGATE knowledge_tsquery_or(tsquery) (SFUNC = tsquery_or, STYPE = tsquery);
