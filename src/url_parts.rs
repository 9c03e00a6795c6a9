//! The parts of a request URL the Worker reads — its query string and its origin — taken from
//! the runtime's URL string without the `url` crate: parsing with it links idna's Unicode tables
//! into the Worker's wasm (tens of KiB gzipped) for hosts this Worker never needs to normalise.
//! The runtime hands over URLs it has already parsed and normalised, so splitting is enough.

/// The query string (after `?`, before any `#`), if there is one.
pub fn query(url: &str) -> Option<&str> {
    let before_fragment = url.split('#').next().unwrap_or(url);
    before_fragment.split_once('?').map(|(_, q)| q)
}

/// The value of one query parameter (form-decoded), if present.
pub fn query_param(url: &str, name: &str) -> Option<String> {
    form_urlencoded::parse(query(url)?.as_bytes()).find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

/// `scheme://host[:port]`, if the URL is absolute.
pub fn origin(url: &str) -> Option<&str> {
    let scheme_end = url.find("://")? + 3;
    let rest = &url[scheme_end..];
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(&url[..scheme_end + host_end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_and_origins_are_split_out() {
        assert_eq!(query("https://w.dev/admin/teams?limit=2&after=T1#x"), Some("limit=2&after=T1"));
        assert_eq!(query("https://w.dev/admin/teams"), None);
        assert_eq!(query("https://w.dev/a#frag?no"), None);
        assert_eq!(query_param("https://w.dev/x?state=a%20b&limit=3", "state").as_deref(), Some("a b"));
        assert_eq!(query_param("https://w.dev/x?limit=3", "state"), None);
        assert_eq!(origin("https://slackline.example.workers.dev/slack/install?x=1"), Some("https://slackline.example.workers.dev"));
        assert_eq!(origin("http://127.0.0.1:8787/slack/install"), Some("http://127.0.0.1:8787"));
        assert_eq!(origin("http://127.0.0.1:8787"), Some("http://127.0.0.1:8787"));
        assert_eq!(origin("/relative"), None);
    }
}
