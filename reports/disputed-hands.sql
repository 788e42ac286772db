-- title: Most disputed hands
-- description: The 50 hands with the most findings, with their violations, warnings and the rules broken.
SELECT h.file,
       h.line,
       h.hand_id,
       h.session,
       h.table_name,
       h.started_at,
       count(*)                                             AS findings,
       count(*) FILTER (WHERE f.severity = 'violation')     AS violations,
       count(*) FILTER (WHERE f.severity = 'warning')       AS warnings,
       list(DISTINCT f.rule ORDER BY f.rule)                AS rules
FROM hands AS h
JOIN findings AS f ON f.hand_key = h.hand_key
GROUP BY h.hand_key, h.file, h.line, h.hand_id, h.session, h.table_name, h.started_at
ORDER BY findings DESC, violations DESC, h.file, h.line
LIMIT 50;
