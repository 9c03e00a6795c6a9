//! The runtime's own fetch objects, reached without the `worker` crate's wrappers (see
//! `runtime::call_actor` and [`super::http`]): a Durable Object namespace's `getByName`, a stub's
//! `fetch`, `AbortSignal.timeout` and a `RequestInit`.

use worker::wasm_bindgen::{self, prelude::wasm_bindgen, JsValue};
use worker::web_sys::{AbortSignal, Headers, RequestInit};

#[wasm_bindgen]
extern "C" {
    /// A Durable Object namespace binding.
    pub type Namespace;
    /// `namespace.getByName(name)`: the stub of the object named `name`.
    #[wasm_bindgen(method, catch, js_name = getByName)]
    pub fn get_by_name(this: &Namespace, name: &str) -> Result<Stub, JsValue>;
    /// A Durable Object stub.
    pub type Stub;
    /// `stub.fetch(url, init)`.
    #[wasm_bindgen(method, catch)]
    pub fn fetch(this: &Stub, url: &str, init: &RequestInit) -> Result<worker::js_sys::Promise, JsValue>;
}

/// `AbortSignal.timeout(ms)`: aborted by the runtime's own timer after `ms` (at least 1).
pub fn timeout_signal(ms: i64) -> AbortSignal {
    AbortSignal::timeout_with_u32(ms.clamp(1, i64::from(u32::MAX)) as u32)
}

/// A `RequestInit` with `method`, and `headers`, `body` and `signal` when given.
pub fn request_init(method: &str, headers: Option<&Headers>, body: Option<&str>, signal: Option<&AbortSignal>) -> RequestInit {
    let init = RequestInit::new();
    init.set_method(method);
    if let Some(headers) = headers {
        init.set_headers(headers);
    }
    if let Some(body) = body {
        init.set_body(&JsValue::from_str(body));
    }
    if let Some(signal) = signal {
        init.set_signal(Some(signal));
    }
    init
}
