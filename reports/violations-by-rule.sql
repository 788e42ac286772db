-- title: Violations by rule
-- description: Every rule broken, most frequent first: findings, hands, files and players per rule and severity.
SELECT f.rule,
       f.severity,
       count(*)                                                        AS findings,
       count(DISTINCT f.hand_key)                                      AS hands,
       count(DISTINCT f.file_sha)                                      AS files,
       count(DISTINCT f.player)                                        AS players,
       round(100.0 * count(DISTINCT f.hand_key)
             / nullif((SELECT count(*) FROM hands), 0), 2)             AS pct_of_hands
FROM findings AS f
GROUP BY f.rule, f.severity
ORDER BY CASE f.severity WHEN 'violation' THEN 0 WHEN 'error' THEN 1 ELSE 2 END, findings DESC, f.rule;
