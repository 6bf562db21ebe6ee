-- tandem serve, schema version 5: limits a user asked for on each run of a job, enforced by the run's cgroup, and where
-- the owner wants each run's output copied.
-- limit_host_memory_mib: host memory (not the GPU's); limit_processes: processes and threads. NULL: no limit.
ALTER TABLE jobs ADD COLUMN limit_host_memory_mib BIGINT;
ALTER TABLE jobs ADD COLUMN limit_processes INTEGER;
-- output: where each run's output is copied for the job's owner when the run ends, written with the owner's rights
-- (a path, absolute or relative to workdir; %j is the job id, %a its array index); NULL: kept in the state directory only.
ALTER TABLE jobs ADD COLUMN output TEXT;
