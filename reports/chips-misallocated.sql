-- title: Chips misallocated per player
-- description: Per player and unit, in hands with a pot paid wrong (POT_WINNER, POT_AMOUNT, ODD_CHIP, UNCALLED_BET): chips received over and under what the rules gave them.
-- param: from_date DATE the first day of play to count
-- param: to_date DATE the last day of play to count
-- param: profile VARCHAR only hands audited under this profile
-- param: table_name VARCHAR only this table's hands
-- Amounts are in each hand's unit: chips, or cents of a currency (USD cents); they are never added across units.
-- On site hands with a rake the pot's winner also shows the rake as received short.
WITH money AS (
    SELECT hand_key, list(DISTINCT rule ORDER BY rule) AS rules
    FROM findings
    WHERE rule IN ('POT_WINNER', 'POT_AMOUNT', 'ODD_CHIP', 'UNCALLED_BET') AND hand_key IS NOT NULL
    GROUP BY hand_key
), wrong AS (
    SELECT p.player,
           CASE WHEN p.unit = 'chips' THEN 'chips' ELSE p.unit || ' cents' END AS unit,
           p.hand_key,
           p.misallocated AS diff,
           m.rules
    FROM player_hands AS p
    JOIN money AS m USING (hand_key)
    WHERE p.misallocated <> 0 AND ($from_date IS NULL OR p.play_date >= CAST($from_date AS DATE))
      AND ($to_date IS NULL OR p.play_date <= CAST($to_date AS DATE))
      AND ($profile IS NULL OR p.profile = $profile)
      AND ($table_name IS NULL OR p.table_name = $table_name)
)
SELECT player,
       unit,
       count(DISTINCT hand_key)                                 AS hands,
       coalesce(sum(diff) FILTER (WHERE diff > 0), 0)           AS received_too_much,
       coalesce(-sum(diff) FILTER (WHERE diff < 0), 0)          AS received_too_little,
       sum(diff)                                                AS net,
       list_sort(list_distinct(flatten(list(rules))))           AS rules
FROM wrong
GROUP BY player, unit
ORDER BY abs(sum(diff)) DESC, received_too_little DESC, player, unit;
