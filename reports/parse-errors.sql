-- title: Hands with parse errors
-- description: Every block that could not be read or replayed, with its file, line, column and the reason.
-- param: from_date DATE the first day to count (by the date on the block's first line, else its session's)
-- param: to_date DATE the last day to count
-- param: profile VARCHAR only blocks read under this profile
-- param: table_name VARCHAR only blocks of this table's sessions
SELECT p.file,
       p.line,
       p.col,
       p.hand_id,
       p.session,
       p.first_line,
       p.end_line,
       split_part(p.message, chr(10), 1) AS message
FROM parse_errors AS p
LEFT JOIN finding_details AS x ON x.hand_key = p.hand_key AND x.rule = 'PARSE_ERROR'
WHERE ($from_date IS NULL OR x.play_date >= CAST($from_date AS DATE))
  AND ($to_date IS NULL OR x.play_date <= CAST($to_date AS DATE))
  AND ($profile IS NULL OR p.profile = $profile)
  AND ($table_name IS NULL OR x.table_name = $table_name)
ORDER BY p.file, p.line;
