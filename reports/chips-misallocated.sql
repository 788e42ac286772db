-- title: Chips misallocated per player
-- description: Per player and unit, what the verdict says is left to pay: chips received over and under what the rules gave them, netting each hand the table corrected itself before a later hand.
-- param: from_date DATE the first day of play to count
-- param: to_date DATE the last day of play to count
-- param: profile VARCHAR only hands audited under this profile
-- param: table_name VARCHAR only this table's hands
-- Amounts are in each hand's unit: chips, or cents of a currency (USD cents); they are never added across units.
-- The figures are the verdict's (seats.owed, as audit explain settles a hand: a rake the game allows is not
-- "received short"), for every seat, a player paid who was not dealt in too. A hand whose wrong payment the
-- table put right itself before a later hand counts for nothing; corrected_at_table names it ("387708 before
-- 387709"), as the verdict says "corrected at the table".
WITH chip_rules AS (
    SELECT hand_key, list(DISTINCT rule ORDER BY rule) AS rules
    FROM findings
    WHERE rule IN ('POT_WINNER', 'POT_AMOUNT', 'ODD_CHIP', 'UNCALLED_BET', 'CHIPS_NOT_CONSERVED', 'RAKE', 'PAROLE')
      AND hand_key IS NOT NULL
    GROUP BY hand_key
), wrong AS (
    SELECT s.player,
           CASE WHEN p.unit = 'chips' THEN 'chips' ELSE p.unit || ' cents' END AS unit,
           s.hand_key,
           s.hand_id,
           p.started_at,
           -s.owed AS diff,
           p.corrected_before,
           coalesce(m.rules, []) AS rules
    FROM seats AS s
    JOIN hand_details AS p ON p.hand_key = s.hand_key
    LEFT JOIN chip_rules AS m ON m.hand_key = s.hand_key
    WHERE s.owed <> 0 AND ($from_date IS NULL OR p.play_date >= CAST($from_date AS DATE))
      AND ($to_date IS NULL OR p.play_date <= CAST($to_date AS DATE))
      AND ($profile IS NULL OR p.profile = $profile)
      AND ($table_name IS NULL OR p.table_name = $table_name)
), due AS (
    SELECT *, corrected_before IS NULL AS counts FROM wrong
)
SELECT player,
       unit,
       count(DISTINCT hand_key) FILTER (WHERE counts)                      AS hands,
       coalesce(sum(diff) FILTER (WHERE counts AND diff > 0), 0)           AS received_too_much,
       coalesce(-sum(diff) FILTER (WHERE counts AND diff < 0), 0)          AS received_too_little,
       coalesce(sum(diff) FILTER (WHERE counts), 0)                        AS net,
       list_sort(list_distinct(flatten(coalesce(list(rules) FILTER (WHERE counts), []))))  AS rules,
       list(hand_id || ' before ' || corrected_before ORDER BY started_at, hand_id)
           FILTER (WHERE NOT counts)                                       AS corrected_at_table
FROM due
GROUP BY player, unit
ORDER BY abs(coalesce(sum(diff) FILTER (WHERE counts), 0)) DESC, received_too_little DESC, player, unit;
