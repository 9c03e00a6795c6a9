//! [`Values`]: a modal's submitted values (`view.state.values`), built from the view's own
//! [`Field`]s, for [`view_submission`](super::view_submission): a bot's test submits what its
//! handler reads with `v.get(FIELD)`, in the shape Slack sends for the field's kind, with no
//! block or action id written twice.
//!
//! ```
//! use slackline::prelude::*;
//! use slackline::testing::{handle, view_submission, Values};
//!
//! const TITLE: Field<kind::Text> = Field::new("title", "title_input");
//! const LABELS: Field<kind::Choices> = Field::new("labels", "labels_input");
//!
//! let app = Listeners::new().view_submission("ticket", |v, cx| {
//!     cx.say("C1", &format!("{:?} {:?}", v.get(TITLE), v.get(LABELS)));
//!     Ok(())
//! });
//! let values = Values::new().with(TITLE, "Checkout fails".into()).with(LABELS, vec!["bug".into()]);
//! let done = handle(&app, &view_submission("ticket", values));
//! assert_eq!(done.calls()[0].1["text"], r#"Some("Checkout fails") Some(["bug"])"#);
//! ```

use crate::blocks::kind::Kind;
use crate::blocks::Field;
use serde_json::{json, Map, Value};

/// A submission's `state.values`: `{block_id: {action_id: state}}`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Values(Map<String, Value>);

impl Values {
    /// Nothing submitted.
    pub fn new() -> Values {
        Values::default()
    }

    /// With `value` submitted in `field` (as Slack sends it for the field's kind).
    pub fn with<K: Kind>(mut self, field: Field<K>, value: K::Value) -> Values {
        let block = self.0.entry(field.block_id()).or_insert_with(|| json!({}));
        block[field.action_id().as_str()] = K::state(&value);
        self
    }
}

impl From<Values> for Value {
    fn from(values: Values) -> Value {
        Value::Object(values.0)
    }
}
