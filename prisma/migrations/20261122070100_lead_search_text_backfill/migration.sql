-- The leads that existed before the Lead_search_text trigger (20261122070000_lead_search_text_column)
-- get their searchText; later ones have it from the trigger. Reads and inserts go on meanwhile; an
-- update of an existing lead waits until this commits. It leaves a dead version of every lead for
-- (auto)vacuum. The lead counters' trigger does not fire: it watches other columns.
UPDATE "Lead" SET "searchText" = "lead_search_text"("name", "email", "company") WHERE "searchText" IS NULL;
