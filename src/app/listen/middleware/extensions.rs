//! The values a middleware hands on to the handler: at most one of each type, kept in the
//! request's [`Cx`](crate::app::listen::Cx) for the rest of its run (`cx.insert(value)`,
//! `cx.extension::<T>()`). A type of the app's own is the key, so two middleware never collide
//! by accident and a handler reads back exactly the type it expects.

use std::any::{Any, TypeId};
use std::collections::HashMap;

/// A map from a type to one value of it.
#[derive(Default)]
pub(crate) struct Extensions(HashMap<TypeId, Box<dyn Any>>);

impl Extensions {
    /// Keeps `value`, replacing the value of its type kept before (returned).
    pub(crate) fn insert<T: 'static>(&mut self, value: T) -> Option<T> {
        let previous = self.0.insert(TypeId::of::<T>(), Box::new(value))?;
        previous.downcast::<T>().ok().map(|boxed| *boxed)
    }

    /// The value of type `T` kept, if any.
    pub(crate) fn get<T: 'static>(&self) -> Option<&T> {
        self.0.get(&TypeId::of::<T>()).and_then(|value| value.downcast_ref::<T>())
    }
}

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extensions").field("kept", &self.0.len()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Tenant(&'static str);

    #[test]
    fn a_value_is_read_back_by_its_type_and_replaced_by_the_next_of_that_type() {
        let mut kept = Extensions::default();
        assert_eq!(kept.get::<Tenant>(), None);
        assert_eq!(kept.insert(Tenant("acme")), None);
        assert_eq!(kept.insert(7_u32), None, "another type is another slot");
        assert_eq!(kept.insert(Tenant("globex")), Some(Tenant("acme")), "the value it replaced comes back");
        assert_eq!((kept.get::<Tenant>(), kept.get::<u32>()), (Some(&Tenant("globex")), Some(&7)));
        assert_eq!(kept.get::<u64>(), None);
    }
}
