//! HTML text escaping for the few pages slackline serves itself (the admin page, the OAuth
//! pages): one function, so every page escapes the same five characters.

/// `text` safe inside an HTML element or a quoted attribute: `& < > " '` escaped.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_five_characters_that_break_out_of_text_or_an_attribute_are_escaped() {
        assert_eq!(super::escape(r#"<a href="x">Tom & 'Jerry'</a>"#), "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
    }
}
