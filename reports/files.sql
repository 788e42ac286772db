-- title: Files ingested
-- description: Every file in the database: path, size, SHA-256, when it was ingested, hands, unreadable hands, findings.
SELECT path,
       size,
       file_sha,
       ingested_at,
       default_profile,
       hands,
       parse_errors,
       findings
FROM files
ORDER BY path, file_sha;
