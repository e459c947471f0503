-- A checkpoint database as schema version 1 writes it: one run of two
-- checkpoints and one session of two turns. Kept as text so the test can
-- check that a file written by this version still reads; never edit it
-- when the schema changes, add a file for the new version instead.
CREATE TABLE loom_schema (
	name    TEXT PRIMARY KEY,
	version INTEGER NOT NULL
);
CREATE TABLE loom_runs (
	run_id     TEXT    PRIMARY KEY,
	head       INTEGER NOT NULL,
	kind       TEXT    NOT NULL,
	created_ns INTEGER NOT NULL,
	updated_ns INTEGER NOT NULL,
	meta       TEXT
);
CREATE INDEX loom_runs_updated ON loom_runs (updated_ns DESC, run_id);
CREATE TABLE loom_checkpoints (
	run_id  TEXT    NOT NULL,
	seq     INTEGER NOT NULL,
	format  INTEGER NOT NULL,
	kind    TEXT    NOT NULL,
	time_ns INTEGER NOT NULL,
	state   BLOB,
	events  BLOB,
	meta    TEXT,
	PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE loom_sessions (
	session_id TEXT    PRIMARY KEY,
	turns      INTEGER NOT NULL,
	created_ns INTEGER NOT NULL,
	updated_ns INTEGER NOT NULL
);
CREATE INDEX loom_sessions_updated ON loom_sessions (updated_ns DESC, session_id);
CREATE TABLE loom_session_turns (
	session_id TEXT    NOT NULL,
	turn       INTEGER NOT NULL,
	format     INTEGER NOT NULL,
	body       BLOB    NOT NULL,
	PRIMARY KEY (session_id, turn)
) WITHOUT ROWID;
INSERT INTO loom_schema (name, version) VALUES ('loom.checkpoint', 1);
INSERT INTO loom_runs (run_id, head, kind, created_ns, updated_ns, meta)
VALUES ('run-1', 2, 'interrupt', 1767323045000000001, 1767323046000000002, '{"agent":"coder"}');
INSERT INTO loom_checkpoints (run_id, seq, format, kind, time_ns, state, events, meta) VALUES
('run-1', 1, 1, 'start', 1767323045000000001, NULL, CAST('[{"kind":"run_start"}]' AS BLOB), '{"agent":"coder"}'),
('run-1', 2, 1, 'interrupt', 1767323046000000002, CAST('{"pending":["approve"]}' AS BLOB), NULL, '{"agent":"coder"}');
INSERT INTO loom_sessions (session_id, turns, created_ns, updated_ns) VALUES ('chat-1', 2, 1767323045000000000, 1767323047000000000);
INSERT INTO loom_session_turns (session_id, turn, format, body) VALUES
('chat-1', 1, 1, CAST('{"role":"user","text":"hi"}' AS BLOB)),
('chat-1', 2, 1, CAST('{"role":"assistant","text":"hello"}' AS BLOB));
