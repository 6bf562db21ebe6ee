-- tandem serve, schema version 3: a job's time limit per run (milliseconds; NULL: none), as Slurm's --time.
ALTER TABLE jobs ADD COLUMN time_limit_ms BIGINT;
