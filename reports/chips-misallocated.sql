-- title: Chips misallocated per player
-- description: Per player, in hands with a pot paid wrong (POT_WINNER, POT_AMOUNT, ODD_CHIP, UNCALLED_BET): chips received over and under what the rules gave them.
-- Amounts are chips for house hands and cents of the currency for site hands (the unit column); on site hands
-- with a rake the pot's winner also shows the rake as received short.
WITH money AS (
    SELECT hand_key,
           list(DISTINCT rule ORDER BY rule) AS rules
    FROM findings
    WHERE rule IN ('POT_WINNER', 'POT_AMOUNT', 'ODD_CHIP', 'UNCALLED_BET') AND hand_key IS NOT NULL
    GROUP BY hand_key
), wrong AS (
    SELECT s.player,
           CASE WHEN h.dialect = 'site' THEN coalesce(h.currency, 'play') || ' cents' ELSE 'chips' END AS unit,
           s.hand_key,
           s.received - s.should_receive AS diff,
           m.rules
    FROM seats AS s
    JOIN money AS m USING (hand_key)
    JOIN hands AS h ON h.hand_key = s.hand_key
    WHERE s.received <> s.should_receive
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
