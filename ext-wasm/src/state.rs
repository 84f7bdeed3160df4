//! States written after the name, always in this order:
//!
//! `type=date` (date/time/color inputs) · `level=N` · `value="…"` · `checked` / `checked=mixed`
//! · `pressed` · `selected` · `current` · `expanded` / `collapsed` · `disabled` · `required` ·
//! `readonly` · `editable`.
//!
//! `value` is shown for textbox, searchbox, spinbutton, slider, combobox, listbox, progressbar
//! and meter: the live value (`p.value`; for a `<select>`, `p.opts`, the selected options'
//! text), else the `value` attribute (else `aria-valuenow`; else a textarea's text). In `safe`
//! mode the value of a sensitive field is `value=<redacted>`.

use crate::dom::Dom;
use crate::redact;
use crate::role;
use crate::table::Redact;
use crate::text::{collapse, push_escaped, truncate};

/// Appends ` state…` for element `id` to `out`.
pub fn write_states(out: &mut String, dom: &Dom<'_>, id: usize, redact: Redact, value_limit: usize) {
    let dn = &dom.nodes[id];
    let node = dn.node;
    let role = dn.role.unwrap_or(role::GENERIC);
    let aria = |name: &str| node.attr(name).map(|v| v.trim().to_ascii_lowercase());
    let aria_true = |name: &str| aria(name).is_some_and(|v| v == "true");

    if node.t == "input" {
        let ty = node.input_type();
        if matches!(ty.as_str(), "date" | "datetime-local" | "month" | "week" | "time" | "color") {
            out.push_str(" type=");
            out.push_str(&ty);
        }
    }
    if role == "heading" {
        let level = aria("aria-level").and_then(|v| v.parse::<u32>().ok()).filter(|&l| l > 0).or_else(|| {
            let b = node.t.as_bytes();
            (b.len() == 2 && b[0] == b'h' && (b'1'..=b'6').contains(&b[1])).then(|| u32::from(b[1] - b'0'))
        });
        out.push_str(" level=");
        out.push_str(&level.unwrap_or(2).to_string());
    }
    if shows_value(role) {
        write_value(out, dom, id, redact, value_limit);
    }
    if matches!(role, "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio" | "treeitem") {
        let state = if node.p.indeterminate == Some(true) {
            Some("mixed")
        } else if let Some(checked) = node.p.checked {
            checked.then_some("true")
        } else {
            match aria("aria-checked").as_deref() {
                Some("true") => Some("true"),
                Some("mixed") => Some("mixed"),
                _ => None,
            }
        };
        match state {
            Some("mixed") => out.push_str(" checked=mixed"),
            Some(_) => out.push_str(" checked"),
            None => {}
        }
    }
    match aria("aria-pressed").as_deref() {
        Some("true") => out.push_str(" pressed"),
        Some("mixed") => out.push_str(" pressed=mixed"),
        _ => {}
    }
    if node.p.selected == Some(true) || (node.p.selected.is_none() && aria_true("aria-selected")) {
        out.push_str(" selected");
    }
    if aria("aria-current").is_some_and(|v| !v.is_empty() && v != "false") {
        out.push_str(" current");
    }
    let expanded = match aria("aria-expanded").as_deref() {
        Some("true") => Some(true),
        Some("false") => Some(false),
        _ if node.t == "summary" => dn
            .parent
            .map(|p| dom.nodes[p].node)
            .filter(|p| p.t == "details")
            .map(|d| d.attr("open").is_some()),
        _ => None,
    };
    match expanded {
        Some(true) => out.push_str(" expanded"),
        Some(false) => out.push_str(" collapsed"),
        None => {}
    }
    let native_disabled = node.attr("disabled").is_some()
        && matches!(
            node.t.as_str(),
            "button" | "input" | "select" | "textarea" | "optgroup" | "option" | "fieldset"
        );
    let form_control = matches!(node.t.as_str(), "button" | "input" | "select" | "textarea");
    if native_disabled || aria_true("aria-disabled") || (dn.fieldset_disabled && form_control) {
        out.push_str(" disabled");
    }
    if node.attr("required").is_some() || aria_true("aria-required") {
        out.push_str(" required");
    }
    if node.attr("readonly").is_some() || aria_true("aria-readonly") {
        out.push_str(" readonly");
    }
    if role::is_editable(node) {
        out.push_str(" editable");
    }
    if role::is_draggable(node) {
        out.push_str(" draggable");
    }
}

fn shows_value(role: &str) -> bool {
    matches!(
        role,
        "textbox" | "searchbox" | "spinbutton" | "slider" | "combobox" | "listbox" | "progressbar" | "meter"
    )
}

fn write_value(out: &mut String, dom: &Dom<'_>, id: usize, redact: Redact, limit: usize) {
    let dn = &dom.nodes[id];
    let node = dn.node;
    let value: String = if node.t == "select" {
        node.p.opts.clone().or_else(|| node.p.value.clone()).unwrap_or_default()
    } else if let Some(v) = node.p.value.as_deref().or(node.attr("value")).or(node.attr("aria-valuenow")) {
        v.to_owned()
    } else if node.t == "textarea" {
        dn.children.iter().filter_map(|&c| dom.nodes[c].node.x.as_deref()).collect::<Vec<_>>().concat()
    } else {
        String::new()
    };
    let value = collapse(&value);
    if value.is_empty() {
        return;
    }
    let named_secret = redact != Redact::Off && redact::is_secret_textarea(node, &dn.name);
    let shown = if named_secret { None } else { redact::field_value(node, &value, redact) };
    let Some(scrubbed) = shown else {
        out.push_str(" value=");
        out.push_str(redact::REDACTED);
        return;
    };
    out.push_str(" value=\"");
    push_escaped(out, &truncate(&scrubbed, limit));
    out.push('"');
}
