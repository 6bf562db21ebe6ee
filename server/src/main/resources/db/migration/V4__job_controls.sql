-- tandem serve, schema version 4: the job controls Slurm users rely on, and what accounting needs.
-- priority: higher runs first (a user may lower its own jobs' priority; raising it above 0 takes an admin).
ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
-- depends_on: comma-separated ids of jobs that must succeed before this one may start; NULL: none.
ALTER TABLE jobs ADD COLUMN depends_on TEXT;
-- held: 1 while a user or admin holds the job back (tandem hold / release).
ALTER TABLE jobs ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
-- array_job: the id of the first job of the array this job belongs to; array_index: its index (TANDEM_ARRAY_INDEX).
ALTER TABLE jobs ADD COLUMN array_job BIGINT;
ALTER TABLE jobs ADD COLUMN array_index INTEGER;
-- first_started_at: when the first run started (started_at is the latest run's), for the wait in accounting.
ALTER TABLE jobs ADD COLUMN first_started_at BIGINT;
-- partners: comma-separated ids of the jobs that shared a GPU with this one, in any run.
ALTER TABLE jobs ADD COLUMN partners TEXT;
CREATE INDEX jobs_finished ON jobs (finished_at);

-- max_gpus: how many GPUs the user's jobs may hold at once; NULL: the daemon's default (--max-gpus-per-user).
ALTER TABLE users ADD COLUMN max_gpus INTEGER;

-- the audit trail learns a new action, 'limit-set'; SQLite cannot change a CHECK constraint in place, so the table
-- is rebuilt (event ids are renumbered in their order; nothing refers to them)
CREATE TABLE user_events_v4 (
    id        ${id_pk},
    at        BIGINT       NOT NULL,
    actor     VARCHAR(64)  NOT NULL,
    user_name VARCHAR(64)  NOT NULL REFERENCES users (name),
    action    VARCHAR(32)  NOT NULL CHECK (action IN ('created', 'disabled', 'enabled', 'token-rotated', 'limit-set')),
    detail    TEXT         NOT NULL
);
INSERT INTO user_events_v4 (at, actor, user_name, action, detail) SELECT at, actor, user_name, action, detail FROM user_events ORDER BY id;
DROP TABLE user_events;
ALTER TABLE user_events_v4 RENAME TO user_events;
CREATE INDEX user_events_by_user ON user_events (user_name, id);
