//! A page planting every class of secret the `safe` redaction level hides (issue 18): the
//! page tools' and `extension_source_inspect`'s tests check that none of them comes out.

/// (what, secret) for every class the safe level hides.
pub const PLANTED: [(&str, &str); 12] = [
    ("password value", "hunter2-pass-Zq"),
    ("hidden value", "hidden-tok-77aa"),
    ("API key typed in a text input", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("one-time code", "839201"),
    ("card number in a cc-number value", "4242 4242 4242 4242"),
    ("card number in text", "5555 5555 5555 4444"),
    ("access_token in an href", "atok-SECRET-1a2b3c"),
    ("token in an image's alt", "9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c"),
    ("textarea contents", "ghp_R4nd0mT0k3nV4lu3F0rT3st1ng99"),
    ("API key in a data-* attribute", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("a card number in a data-* attribute", "4012888888881881"),
    ("bearer token in text", "bt-PLANTED-a1b2c3d4"),
];

pub const SECRETS_PAGE: &str = r#"<!doctype html><title>Account</title><body>
<h1>Account settings</h1>
<form>
  <label>Name <input id="name" value="Ada Lovelace"></label>
  <label>Password <input id="pw" type="password" value="hunter2-pass-Zq"></label>
  <input type="hidden" name="csrf" value="hidden-tok-77aa">
  <label>API key <input id="key" value="sk_live_4eC39HqLyjWDarjtT1zdp7dc"></label>
  <label>Code <input id="otp" autocomplete="one-time-code" value="839201"></label>
  <label>Card <input id="cc" autocomplete="cc-number" value="4242 4242 4242 4242"></label>
  <label>Notes <textarea id="notes">ghp_R4nd0mT0k3nV4lu3F0rT3st1ng99</textarea></label>
  <button type="button">Save</button>
</form>
<p>Card on file: 5555 5555 5555 4444</p>
<p>Send Authorization: Bearer bt-PLANTED-a1b2c3d4 with each call</p>
<a href="/callback?access_token=atok-SECRET-1a2b3c&amp;state=ok">Continue</a>
<img src="/pixel.png" alt="token 9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c">
<div data-api-key="AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY" data-card="4012888888881881">widget</div>
</body>"#;
