//! Roles: the explicit `role` attribute, else the implicit role of the tag (HTML-AAM, simplified).
//!
//! A role is a `&'static str` holding its ARIA name (`"link"`, `"heading"`, …), plus
//! `"iframe"` for frame elements. Two roles depend on the accessible name (`form`, `region`:
//! generic when unnamed); the caller applies that once the name is known.

use crate::table::Node;

/// The generic role: wrappers without meaning (`div`, `span`, custom elements, …).
pub const GENERIC: &str = "generic";

/// ARIA roles recognised in a `role` attribute; the first recognised token wins.
const ARIA_ROLES: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "mark",
    "marquee",
    "math",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "meter",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
];

/// Where an element sits, as far as its implicit role cares.
#[derive(Debug, Default, Clone, Copy)]
pub struct RoleContext {
    /// Inside `article`, `aside`, `main`, `nav` or `section`: `header`/`footer` lose their
    /// landmark role there.
    pub in_sectioning: bool,
}

/// The role of an element; `None` when the element is not rendered at all
/// (`<input type=hidden>`).
pub fn role_of(node: &Node, ctx: RoleContext) -> Option<&'static str> {
    if node.t == "input" && node.input_type() == "hidden" {
        return None;
    }
    if let Some(explicit) = node.attr("role").and_then(explicit_role) {
        let presentational = explicit == "none" || explicit == "presentation";
        if !presentational {
            return Some(explicit);
        }
        // A focusable element keeps its meaning: ARIA's presentational-role conflict rule.
        if !is_focusable(node) {
            return Some(GENERIC);
        }
    }
    Some(implicit_role(node, ctx))
}

/// The first recognised token of a `role` attribute value.
pub fn explicit_role(value: &str) -> Option<&'static str> {
    value.split_ascii_whitespace().find_map(|tok| {
        let tok = tok.to_ascii_lowercase();
        if tok == "image" {
            return Some("img");
        }
        ARIA_ROLES.iter().copied().find(|r| *r == tok)
    })
}

/// Natively focusable, or made focusable by `tabindex`/`contenteditable`.
pub fn is_focusable(node: &Node) -> bool {
    node.attr("tabindex").is_some_and(|v| v.trim().parse::<i64>().is_ok())
        || is_editable(node)
        || match node.t.as_str() {
            "a" | "area" => node.attr("href").is_some(),
            "button" | "select" | "textarea" | "iframe" | "summary" => true,
            "input" => node.input_type() != "hidden",
            _ => false,
        }
}

/// `contenteditable` present and not `"false"`.
pub fn is_editable(node: &Node) -> bool {
    node.attr("contenteditable").is_some_and(|v| !v.trim().eq_ignore_ascii_case("false"))
}

/// `draggable="true"`: an element users pick up.
pub fn is_draggable(node: &Node) -> bool {
    node.attr("draggable").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// `tabindex` ≥ 0.
pub fn in_tab_order(node: &Node) -> bool {
    node.attr("tabindex").and_then(|v| v.trim().parse::<i64>().ok()).is_some_and(|v| v >= 0)
}

/// The role HTML gives the tag.
pub fn implicit_role(node: &Node, ctx: RoleContext) -> &'static str {
    match node.t.as_str() {
        "a" | "area" if node.attr("href").is_some() => "link",
        "button" => "button",
        "input" => input_role(node),
        "textarea" => "textbox",
        "select" => {
            let size = node.attr("size").and_then(|s| s.trim().parse::<u32>().ok()).unwrap_or(0);
            if node.attr("multiple").is_some() || size > 1 { "listbox" } else { "combobox" }
        }
        "option" => "option",
        "optgroup" | "details" | "fieldset" | "address" => "group",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "img" => {
            if node.attr("alt").is_some_and(|alt| alt.is_empty()) {
                "none"
            } else {
                "img"
            }
        }
        "nav" => "navigation",
        "main" => "main",
        "header" if !ctx.in_sectioning => "banner",
        "footer" if !ctx.in_sectioning => "contentinfo",
        "aside" => "complementary",
        "form" => "form",
        "search" => "search",
        "section" => "region",
        "article" => "article",
        "ul" | "ol" | "menu" => "list",
        "li" => "listitem",
        "table" => "table",
        "caption" => "caption",
        "tr" => "row",
        "td" => "cell",
        "th" => {
            if node.attr("scope").is_some_and(|s| s.eq_ignore_ascii_case("row")) {
                "rowheader"
            } else {
                "columnheader"
            }
        }
        "thead" | "tbody" | "tfoot" => "rowgroup",
        "dialog" => "dialog",
        "summary" => "button",
        "progress" => "progressbar",
        "meter" => "meter",
        "output" => "status",
        "hr" => "separator",
        "iframe" | "frame" => "iframe",
        "p" => "paragraph",
        "blockquote" => "blockquote",
        "code" | "pre" => "code",
        "dt" => "term",
        "dd" => "definition",
        "figure" => "figure",
        "em" => "emphasis",
        "strong" => "strong",
        "mark" => "mark",
        "time" => "time",
        "sub" => "subscript",
        "sup" => "superscript",
        "del" | "s" => "deletion",
        "ins" => "insertion",
        "math" => "math",
        _ => GENERIC,
    }
}

fn input_role(node: &Node) -> &'static str {
    let ty = node.input_type();
    let listed = node.attr("list").is_some();
    match ty.as_str() {
        "checkbox" => "checkbox",
        "radio" => "radio",
        "range" => "slider",
        "number" => "spinbutton",
        "submit" | "reset" | "button" | "image" | "file" | "color" => "button",
        "search" if listed => "combobox",
        "search" => "searchbox",
        "text" | "email" | "tel" | "url" if listed => "combobox",
        _ => "textbox",
    }
}

/// Roles whose wrapper carries no meaning of its own when unnamed and not interactive: such
/// elements get no line, their content is hoisted to the parent (inline ones flow into the
/// surrounding text).
pub fn is_hoistable(role: &str) -> bool {
    matches!(
        role,
        "generic"
            | "none"
            | "presentation"
            | "paragraph"
            | "rowgroup"
            | "code"
            | "emphasis"
            | "strong"
            | "mark"
            | "time"
            | "subscript"
            | "superscript"
            | "deletion"
            | "insertion"
    )
}

name_set!(
    /// Roles that take their name from their content (accname "name from content"). The
    /// collector's find scope gets the list, generated (`tests/page_constants.rs`).
    NAMED_FROM_CONTENT,
    /// Whether `role` is one of [`NAMED_FROM_CONTENT`].
    names_from_content,
    [
        "button",
        "link",
        "heading",
        "tab",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "option",
        "cell",
        "gridcell",
        "columnheader",
        "rowheader",
        "treeitem",
        "checkbox",
        "radio",
        "switch",
        "tooltip",
        "caption",
        "term",
    ]
);

name_set!(
    /// Roles listed by `interactiveOnly` (plus anything focusable by `tabindex` or editable).
    /// The helper's page agent gets the same list, generated (`tests/page_constants.rs`).
    INTERACTIVE_ROLES,
    /// Whether `role` is one of [`INTERACTIVE_ROLES`].
    is_interactive_role,
    [
        "link",
        "button",
        "textbox",
        "searchbox",
        "checkbox",
        "radio",
        "combobox",
        "listbox",
        "option",
        "slider",
        "spinbutton",
        "switch",
        "tab",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "treeitem",
    ]
);

/// Plural of a role for the collapse line (`links`, `checkboxes`).
pub fn plural(role: &str) -> String {
    let mut p = String::with_capacity(role.len() + 2);
    p.push_str(role);
    if role.ends_with('x') || role.ends_with('s') {
        p.push_str("es");
    } else {
        p.push('s');
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Attrs;

    fn el(tag: &str, attrs: &[(&str, &str)]) -> Node {
        Node {
            t: tag.into(),
            a: Attrs(attrs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()),
            ..Node::default()
        }
    }

    fn role(tag: &str, attrs: &[(&str, &str)]) -> Option<&'static str> {
        role_of(&el(tag, attrs), RoleContext::default())
    }

    #[test]
    fn explicit_roles() {
        assert_eq!(role("div", &[("role", "button")]), Some("button"));
        assert_eq!(role("div", &[("role", "bogus  tab button")]), Some("tab"));
        assert_eq!(role("div", &[("role", "BOGUS")]), Some("generic"));
        assert_eq!(role("span", &[("role", "image")]), Some("img"));
        assert_eq!(role("button", &[("role", "presentation")]), Some("button"));
        assert_eq!(role("li", &[("role", "none")]), Some("generic"));
        assert_eq!(role("li", &[("role", "none"), ("tabindex", "-1")]), Some("listitem"));
        assert_eq!(role("input", &[("type", "hidden"), ("role", "button")]), None);
    }

    #[test]
    fn links_and_buttons() {
        assert_eq!(role("a", &[("href", "/x")]), Some("link"));
        assert_eq!(role("a", &[]), Some("generic"));
        assert_eq!(role("button", &[]), Some("button"));
        assert_eq!(role("summary", &[]), Some("button"));
    }

    #[test]
    fn inputs() {
        let cases = [
            (None, "textbox"),
            (Some("text"), "textbox"),
            (Some("email"), "textbox"),
            (Some("tel"), "textbox"),
            (Some("url"), "textbox"),
            (Some("password"), "textbox"),
            (Some("date"), "textbox"),
            (Some("search"), "searchbox"),
            (Some("checkbox"), "checkbox"),
            (Some("radio"), "radio"),
            (Some("range"), "slider"),
            (Some("number"), "spinbutton"),
            (Some("submit"), "button"),
            (Some("reset"), "button"),
            (Some("button"), "button"),
            (Some("image"), "button"),
            (Some("file"), "button"),
            (Some("SEARCH"), "searchbox"),
        ];
        for (ty, want) in cases {
            let attrs: Vec<(&str, &str)> = ty.map(|t| ("type", t)).into_iter().collect();
            assert_eq!(role("input", &attrs), Some(want), "{ty:?}");
        }
        assert_eq!(role("input", &[("type", "hidden")]), None);
        assert_eq!(role("input", &[("list", "dl")]), Some("combobox"));
        assert_eq!(role("input", &[("type", "search"), ("list", "dl")]), Some("combobox"));
        assert_eq!(role("input", &[("type", "password"), ("list", "dl")]), Some("textbox"));
        assert_eq!(role("textarea", &[]), Some("textbox"));
        assert_eq!(role("select", &[]), Some("combobox"));
        assert_eq!(role("select", &[("multiple", "")]), Some("listbox"));
        assert_eq!(role("select", &[("size", "4")]), Some("listbox"));
        assert_eq!(role("select", &[("size", "1")]), Some("combobox"));
        assert_eq!(role("option", &[]), Some("option"));
    }

    #[test]
    fn structure() {
        for (tag, want) in [
            ("h1", "heading"),
            ("h6", "heading"),
            ("nav", "navigation"),
            ("main", "main"),
            ("header", "banner"),
            ("footer", "contentinfo"),
            ("aside", "complementary"),
            ("form", "form"),
            ("section", "region"),
            ("article", "article"),
            ("ul", "list"),
            ("ol", "list"),
            ("li", "listitem"),
            ("table", "table"),
            ("tr", "row"),
            ("td", "cell"),
            ("th", "columnheader"),
            ("thead", "rowgroup"),
            ("tbody", "rowgroup"),
            ("dialog", "dialog"),
            ("details", "group"),
            ("fieldset", "group"),
            ("legend", "generic"),
            ("progress", "progressbar"),
            ("meter", "meter"),
            ("output", "status"),
            ("hr", "separator"),
            ("iframe", "iframe"),
            ("frame", "iframe"),
            ("p", "paragraph"),
            ("blockquote", "blockquote"),
            ("pre", "code"),
            ("code", "code"),
            ("dt", "term"),
            ("dd", "definition"),
            ("dl", "generic"),
            ("figure", "figure"),
            ("label", "generic"),
            ("div", "generic"),
            ("span", "generic"),
            ("my-widget", "generic"),
            ("img", "img"),
        ] {
            assert_eq!(role(tag, &[]), Some(want), "{tag}");
        }
        assert_eq!(role("th", &[("scope", "row")]), Some("rowheader"));
        assert_eq!(role("img", &[("alt", "")]), Some("none"));
        assert_eq!(role("img", &[("alt", "logo")]), Some("img"));
        let inside = RoleContext { in_sectioning: true };
        assert_eq!(role_of(&el("header", &[]), inside), Some("generic"));
        assert_eq!(role_of(&el("footer", &[]), inside), Some("generic"));
    }

    #[test]
    fn plurals_and_sets() {
        assert_eq!(plural("link"), "links");
        assert_eq!(plural("checkbox"), "checkboxes");
        assert_eq!(plural("status"), "statuses");
        assert!(is_hoistable("generic") && is_hoistable("paragraph") && !is_hoistable("list"));
        assert!(names_from_content("link") && !names_from_content("listitem"));
        assert!(is_interactive_role("slider") && !is_interactive_role("heading"));
        assert!(in_tab_order(&el("div", &[("tabindex", "0")])));
        assert!(!in_tab_order(&el("div", &[("tabindex", "-1")])));
        assert!(is_editable(&el("div", &[("contenteditable", "")])));
        assert!(!is_editable(&el("div", &[("contenteditable", "false")])));
    }
}
