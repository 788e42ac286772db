-- title: Misawarded pots
-- description: Every pot paid to the wrong player, in the wrong amount or with the odd chip to the wrong player: who collected what, who should have, the findings, and whether the table corrected it itself.
-- param: from_date DATE the first day of play to count
-- param: to_date DATE the last day of play to count
-- param: profile VARCHAR only hands audited under this profile
-- param: table_name VARCHAR only this table's hands
-- Amounts are in the hand's unit, which the unit column names: chips, or cents of a currency ('USD cents':
-- 45 is $0.45), as chips-misallocated does. corrected_before names the later hand before which the table put the
-- hand's wrong payment right itself (nothing is left to pay for it); null when nobody did.
SELECT p.file,
       p.hand_id,
       p.session,
       p.table_name,
       p.started_at,
       CASE WHEN p.unit = 'chips' THEN 'chips' ELSE p.unit || ' cents' END AS unit,
       p.pot,
       p.pot_amount,
       p.winners,
       list(p.player || ' ' || p.collected ORDER BY p.player) FILTER (WHERE p.collected > 0)        AS collected,
       list(p.player || ' ' || p.should_award ORDER BY p.player) FILTER (WHERE p.should_award > 0)  AS should_have,
       any_value(p.finding_rules)                                                                  AS rules,
       any_value(p.finding_messages)                                                               AS messages,
       any_value(p.corrected_before)                                                               AS corrected_before
FROM pot_details AS p
WHERE p.misawarded AND ($from_date IS NULL OR p.play_date >= CAST($from_date AS DATE))
  AND ($to_date IS NULL OR p.play_date <= CAST($to_date AS DATE))
  AND ($profile IS NULL OR p.profile = $profile)
  AND ($table_name IS NULL OR p.table_name = $table_name)
GROUP BY p.hand_key, p.pot_index, p.file, p.hand_id, p.session, p.table_name, p.started_at, p.unit, p.pot,
         p.pot_amount, p.winners
ORDER BY p.file, p.started_at, p.hand_id, p.pot_index;
