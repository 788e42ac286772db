-- title: Hands with parse errors
-- description: Every block that could not be read or replayed, with its file, line, column and the reason.
SELECT p.file,
       p.line,
       p.col,
       p.hand_id,
       p.session,
       p.first_line,
       p.end_line,
       split_part(p.message, chr(10), 1) AS message
FROM parse_errors AS p
ORDER BY p.file, p.line;
