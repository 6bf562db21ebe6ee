-- tandem serve, schema version 2: user accounts.
-- unix_user: the Unix account whose rights a user's jobs run with. NULL (users created before version 2) means the
-- daemon's own account, which is what their jobs ran as.
ALTER TABLE users ADD COLUMN unix_user VARCHAR(64);
-- a disabled user's token is refused; its jobs stay as they are
ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;

-- the audit trail of user changes, with who made them
CREATE TABLE user_events (
    id        ${id_pk},
    at        BIGINT       NOT NULL,
    actor     VARCHAR(64)  NOT NULL,
    user_name VARCHAR(64)  NOT NULL REFERENCES users (name),
    action    VARCHAR(32)  NOT NULL CHECK (action IN ('created', 'disabled', 'enabled', 'token-rotated')),
    detail    TEXT         NOT NULL
);
CREATE INDEX user_events_by_user ON user_events (user_name, id);
