-- tandem serve, schema version 1. The same file runs on SQLite and PostgreSQL: times are epoch milliseconds
-- (BIGINT), flags are INTEGER 0/1, JSON values are TEXT, and ${id_pk} is the auto-numbered key column type
-- of the database (Flyway placeholder, set by dev.tandem.server.store.Database).

CREATE TABLE users (
    name        VARCHAR(64)  PRIMARY KEY,
    role        VARCHAR(16)  NOT NULL CHECK (role IN ('admin', 'user')),
    token_hash  CHAR(64)     NOT NULL UNIQUE, -- SHA-256 hex of the bearer token; the token itself is never stored
    created_at  BIGINT       NOT NULL
);

CREATE TABLE jobs (
    id              ${id_pk},
    owner           VARCHAR(64)  NOT NULL REFERENCES users (name),
    name            VARCHAR(128) NOT NULL,
    argv            TEXT         NOT NULL, -- JSON array of strings, executed without a shell
    env             TEXT         NOT NULL, -- JSON object of extra environment variables
    workdir         TEXT         NOT NULL,
    gpus            INTEGER      NOT NULL,
    memory_mib      BIGINT       NOT NULL, -- declared device memory per GPU, 0 = unknown (learned by profiling)
    iterations      BIGINT,                -- expected total iterations, if the user gave them
    sig_model       VARCHAR(128) NOT NULL,
    sig_dataset     VARCHAR(128) NOT NULL,
    sig_batch       INTEGER      NOT NULL,
    sig_amp         INTEGER      NOT NULL,
    state           VARCHAR(16)  NOT NULL,
    attempts        INTEGER      NOT NULL DEFAULT 0,
    exclusive       INTEGER      NOT NULL DEFAULT 0, -- 1 after an out-of-memory crash: next run alone
    gpu_ids         TEXT,                  -- comma-separated GPU indices of the current or last run
    pid             BIGINT,
    pid_started     BIGINT,                -- process start time, to tell a re-used pid from ours after a restart
    exit_code       INTEGER,
    progress_iter   BIGINT,
    attained_gpu_ms BIGINT       NOT NULL DEFAULT 0,
    predicted_speed DOUBLE PRECISION,
    observed_speed  DOUBLE PRECISION,
    submitted_at    BIGINT       NOT NULL,
    queued_at       BIGINT       NOT NULL,
    started_at      BIGINT,
    finished_at     BIGINT,
    updated_at      BIGINT       NOT NULL,
    reason          TEXT
);
CREATE INDEX jobs_state ON jobs (state);
CREATE INDEX jobs_owner ON jobs (owner);

CREATE TABLE job_events (
    id         ${id_pk},
    job_id     BIGINT      NOT NULL REFERENCES jobs (id),
    at         BIGINT      NOT NULL,
    from_state VARCHAR(16),
    to_state   VARCHAR(16) NOT NULL,
    actor      VARCHAR(64) NOT NULL,
    reason     TEXT
);
CREATE INDEX job_events_job ON job_events (job_id);

CREATE TABLE profiles (
    signature      VARCHAR(400) PRIMARY KEY,
    sig_model      VARCHAR(128) NOT NULL,
    sig_dataset    VARCHAR(128) NOT NULL,
    sig_batch      INTEGER      NOT NULL,
    sig_amp        INTEGER      NOT NULL,
    solo_speed     DOUBLE PRECISION NOT NULL, -- iterations per second alone
    speed_measured INTEGER      NOT NULL,     -- 0 when the job printed no progress (solo_speed is then 1)
    gpu_util       DOUBLE PRECISION,
    gmem_util      DOUBLE PRECISION,
    gmem_mib       DOUBLE PRECISION,
    sm_active      DOUBLE PRECISION,
    sm_occupancy   DOUBLE PRECISION,
    dram_active    DOUBLE PRECISION,
    samples        INTEGER      NOT NULL,
    source_job     BIGINT,
    gpu_name       VARCHAR(128),
    measured_at    BIGINT       NOT NULL
);

-- what out-of-memory crashes taught; the scheduler's snapshot carries both
CREATE TABLE memory_estimates (
    sig_model   VARCHAR(128) NOT NULL,
    sig_dataset VARCHAR(128) NOT NULL,
    sig_batch   INTEGER      NOT NULL,
    sig_amp     INTEGER      NOT NULL,
    memory_mib  BIGINT       NOT NULL,
    updated_at  BIGINT       NOT NULL,
    PRIMARY KEY (sig_model, sig_dataset, sig_batch, sig_amp)
);

CREATE TABLE oom_pairs (
    sig_a VARCHAR(400) NOT NULL,
    sig_b VARCHAR(400) NOT NULL,
    at    BIGINT       NOT NULL,
    PRIMARY KEY (sig_a, sig_b)
);

-- measured co-location speeds, replayed into the compatibility model on start
CREATE TABLE pair_observations (
    id        ${id_pk},
    a_model   VARCHAR(128) NOT NULL,
    a_dataset VARCHAR(128) NOT NULL,
    a_batch   INTEGER      NOT NULL,
    a_amp     INTEGER      NOT NULL,
    b_model   VARCHAR(128) NOT NULL,
    b_dataset VARCHAR(128) NOT NULL,
    b_batch   INTEGER      NOT NULL,
    b_amp     INTEGER      NOT NULL,
    gpus      INTEGER      NOT NULL,
    speed_a   DOUBLE PRECISION NOT NULL,
    speed_b   DOUBLE PRECISION NOT NULL,
    at        BIGINT       NOT NULL
);
