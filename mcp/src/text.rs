//! Small pieces of the text forms results and reports are printed in.

/// `1 tab`, `3 tabs`: a count with its noun.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_take_the_singular_only_for_one() {
        assert_eq!(counted(1, "tab", "tabs"), "1 tab");
        assert_eq!(counted(0, "tab", "tabs"), "0 tabs");
        assert_eq!(counted(3, "tab", "tabs"), "3 tabs");
    }
}
