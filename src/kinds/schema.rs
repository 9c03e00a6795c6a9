//! The team actor's database, version by version: the engine's migrations (`crate::sql`) and each
//! room's (its own `sql.rs`), in the order they ran. No room: like the registry, the one list that
//! names every kind with a table; the machinery that runs it (`crate::sql::migrate`: the plan, the
//! floors, the stamp) knows no kind. A room that adds a table adds its migration here, last.

use crate::sql::{self, migrate::Migration, migrate::Schema};

/// The team actor's schema.
pub const TEAM: Schema<'static> = Schema {
    actor: "team",
    migrations: &[
        // Steps 1 to 5 were written before floors existed, and the releases below 5 refuse every
        // newer stamp whatever it says: each is its own floor. Step 5 would be one anyway: the
        // release before it reads a notify post from `slack_results`, where 5 no longer puts it.
        Migration { to: 1, name: "baseline", sql: sql::schema::SCHEMA, floor: 1 },
        Migration { to: 2, name: "app_state", sql: sql::state::MIGRATION_2, floor: 2 },
        Migration { to: 3, name: "lean_rows", sql: sql::lean::MIGRATION_3, floor: 3 },
        Migration { to: 4, name: "streamed_answers", sql: crate::kinds::assistant::sql::MIGRATION_4, floor: 4 },
        Migration { to: 5, name: "posted_on_row", sql: crate::kinds::notify::sql::MIGRATION_5, floor: 5 },
        Migration { to: 6, name: "answer_stops", sql: crate::kinds::assistant::sql::MIGRATION_6, floor: 5 },
        // Additive (one nullable column, which version 5 never reads): the floor stays 5.
        Migration { to: 7, name: "uncertain_posts", sql: crate::kinds::post::sql::MIGRATION_7, floor: 5 },
        // Additive (a table version 5 never names): the floor stays 5.
        Migration { to: 8, name: "agent_sessions", sql: crate::kinds::assistant::sql::MIGRATION_8, floor: 5 },
        // Additive (a table version 5 never names): the floor stays 5.
        Migration { to: 9, name: "step_executions", sql: crate::kinds::step::sql::MIGRATION_9, floor: 5 },
        // Index-only (a release of version 5 looks keys up by their primary key; its sweeps scan
        // for the oldest expiry): the floor stays 5.
        Migration { to: 10, name: "keys_unindexed", sql: crate::kinds::notify::sql::MIGRATION_10, floor: 5 },
        // Index changes and two nullable columns: the floor stays 5. A release before it runs
        // every query as it did (by the primary key where it used the dropped index); one that
        // takes over a reconciliation pass this release began reads its start as 0 and so marks
        // nothing missing (`kinds::lists::sql::MIGRATION_11`).
        Migration { to: 11, name: "lean_records", sql: crate::kinds::lists::sql::MIGRATION_11, floor: 5 },
    ],
};
