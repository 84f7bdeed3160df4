//! `safe` redaction of secrets and card numbers; `off` shows everything.
mod common;
use common::{snap, snap_with};
use webext_mcp_engine::table::{Options, Redact};

const FORM: &str = r#"
input type=password aria-label=Password p.value=hunter2
input type=hidden p.value=token
input autocomplete=cc-number aria-label=Number p.value=1234
input name=card_holder aria-label=Holder p.value="Ada L"
input id=cvv aria-label=CVV p.value=123
input aria-label=Note p.value="card 4111 1111 1111 1111 ok"
p
  "Paid with 4111-1111-1111-1111 today"
button aria-label="Use 5555555555554444"
a href=/pay?n=4012888888881881
  "Pay"
input aria-label=Phone p.value="+1 555-123-4567"
"#;

#[test]
fn safe_mode_redacts_secrets_and_card_numbers() {
    let text = snap(FORM);
    let want = r#"[e1] textbox "Password" value=<redacted>
[e3] textbox "Number" value=<redacted>
[e4] textbox "Holder" value=<redacted>
[e5] textbox "CVV" value=<redacted>
[e6] textbox "Note" value="card <redacted> ok"
text "Paid with <redacted> today"
[e8] button "Use <redacted>"
[e9] link "Pay" -> /pay?n=<redacted>
[e10] textbox "Phone" value="+1 555-123-4567"
"#;
    assert_eq!(text, want);
    assert!(!text.contains("hunter2") && !text.contains("token"));
}

#[test]
fn off_mode_shows_values() {
    let text = snap_with(FORM, Options { redact: Redact::Off, ..Options::default() });
    assert!(text.contains(r#"[e1] textbox "Password" value="hunter2""#));
    assert!(text.contains("text \"Paid with 4111-1111-1111-1111 today\""));
    assert!(text.contains("-> /pay?n=4012888888881881"));
    // hidden inputs are never rendered
    assert!(!text.contains("token"));
}
